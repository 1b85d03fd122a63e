// Creates or updates patients: a pseudonym, an age band and sex, nothing that identifies.
// @param rows: list of {id, age_band, sex, source}
// @returns written: rows written
UNWIND $rows AS row
MERGE (p:Patient {id: row.id})
SET p.age_band = row.age_band, p.sex = row.sex, p.source = row.source
RETURN count(*) AS written
