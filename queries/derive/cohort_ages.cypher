// The age and sex profile of a page of patients, for the age and sex fit of distractors
// (kgverify/derive/fit.py): each patient's sex, stored age band, the date that band was
// stated for (the first start of an encounter of a known kind, else of the first episode, as
// derivation's age at an episode reads it: PatientRecord.age_at) and the distinct (coded concept, year) pairs of its facts, the year of
// the fact's encounter where it has one (its episode's, as derivation dates it). Read-only.
// @param patients: list of patient ids
// @returns id, sex, age_band, first, coded
UNWIND $patients AS pid
MATCH (p:Patient {id: pid})
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_FACT]->(:Fact)-[:RECORDED_IN]->(e:Encounter)
  WHERE e.kind IS NOT NULL
  RETURN toString(min(e.start)) AS first_encounter
}
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_FACT]->(f:Fact)
  OPTIONAL MATCH (f)-[:RECORDED_IN]->(e:Encounter)
  RETURN toString(min(coalesce(e.start, f.start))) AS first_fact
}
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_FACT]->(f:Fact)-[:CODED_AS]->(c:Concept)
  OPTIONAL MATCH (f)-[:RECORDED_IN]->(e:Encounter)
  WITH c, coalesce(e.start, f.start) AS at WHERE c IS NOT NULL AND at IS NOT NULL
  RETURN collect(DISTINCT [c.id, left(toString(at), 4)]) AS coded
}
RETURN p.id AS id, p.sex AS sex, p.age_band AS age_band,
       coalesce(first_encounter, first_fact) AS first, coded
