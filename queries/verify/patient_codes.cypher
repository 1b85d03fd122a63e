// The concepts each patient's own facts are coded as: what enrichment leaves out of a
// relation's distractors (a patient's own condition or drug is no distractor for them).
// Walks from the patient to its facts only, never from a concept to other patients' facts.
// Read-only.
// @param rows: list of {patient_id}
// @returns patient_id, codes: the distinct concept ids (empty for a patient not in the graph)
UNWIND $rows AS row
OPTIONAL MATCH (:Patient {id: row.patient_id})-[:HAS_FACT]->(:Fact)-[:CODED_AS]->(f:Concept)
RETURN row.patient_id AS patient_id, collect(DISTINCT f.id) AS codes
