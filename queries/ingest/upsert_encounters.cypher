// Creates or updates encounters and links them to their patient.
// @param rows: list of {id, patient_id, start, end, kind}
// @returns written: rows whose patient exists
UNWIND $rows AS row
MATCH (p:Patient {id: row.patient_id})
MERGE (e:Encounter {id: row.id})
SET e.start = row.start, e.end = row.end, e.kind = row.kind
MERGE (p)-[:HAD_ENCOUNTER]->(e)
RETURN count(*) AS written
