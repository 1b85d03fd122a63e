// Creates or updates patient facts (conditions, drugs, measurements, procedures), links each
// to its patient, to its encounter when it has one, and to the vocabulary concept of its code
// when that concept is loaded (`known`); a fact whose code is not in the graph is kept and
// marked known = false.
// @param rows: list of {id, patient_id, encounter_id, kind, concept_id, code_system, code, display, start, end, value, value_text, unit, ref_low, ref_high, flag, source_table, source_row, mapped}
// @returns written, known: rows written, and how many of them link to a concept
UNWIND $rows AS row
MATCH (p:Patient {id: row.patient_id})
MERGE (f:Fact {id: row.id})
SET f.kind = row.kind, f.code_system = row.code_system, f.code = row.code,
    f.display = row.display, f.start = row.start, f.end = row.end, f.value = row.value,
    f.value_text = row.value_text, f.unit = row.unit, f.ref_low = row.ref_low,
    f.ref_high = row.ref_high, f.flag = row.flag, f.source_table = row.source_table,
    f.source_row = row.source_row, f.mapped = row.mapped
MERGE (p)-[:HAS_FACT]->(f)
WITH f, row
OPTIONAL MATCH (e:Encounter {id: row.encounter_id})
FOREACH (_ IN CASE WHEN e IS NULL THEN [] ELSE [1] END | MERGE (f)-[:RECORDED_IN]->(e))
WITH f, row
OPTIONAL MATCH (c:Concept {id: row.concept_id})
FOREACH (_ IN CASE WHEN c IS NULL THEN [] ELSE [1] END | MERGE (f)-[:CODED_AS]->(c))
SET f.known = c IS NOT NULL
RETURN count(*) AS written, count(c) AS known
