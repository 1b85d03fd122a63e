// The age and sex profile of a page of patients, for the age and sex fit of distractors
// (kgverify/derive/fit.py): each patient's sex, stored age band, the date that band was
// stated for (the first encounter's start, else the first fact's, as derivation's age at an
// episode reads it) and the distinct (coded concept, year) pairs of its facts. Read-only.
// @param patients: list of patient ids
// @returns id, sex, age_band, first, coded
UNWIND $patients AS pid
MATCH (p:Patient {id: pid})
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_FACT]->(:Fact)-[:RECORDED_IN]->(e:Encounter)
  RETURN toString(min(e.start)) AS first_encounter
}
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_FACT]->(f:Fact)-[:CODED_AS]->(c:Concept)
  WITH f, c WHERE f IS NOT NULL AND f.start IS NOT NULL
  RETURN toString(min(f.start)) AS first_fact,
         collect(DISTINCT [c.id, left(toString(f.start), 4)]) AS coded
}
RETURN p.id AS id, p.sex AS sex, p.age_band AS age_band,
       coalesce(first_encounter, first_fact) AS first, coded
