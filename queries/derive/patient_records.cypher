// Everything derivation reads about a page of patients, one row per patient: the patient,
// every fact with its episode (the encounter it was recorded in, if any) and the id of its
// concept (what derivation needs about each concept, read once per concept:
// derive/fact_concepts), and every assertion about the patient with the facts it rests on and
// the side (subject or object) each fact stands on (the fact's concept is the side's concept
// or within two MAPS_TO steps).
// An assertion's verdict and passed are its standing ones (after `kgverify reverify`, the
// re-checked verdict), so a derivation after a new release leaves out what no longer passes;
// a reviewer's decision on it (review: 'true' or 'false', and the review id) comes too.
// An assertion comes whole when $whole is null, when it passed (or a reviewer judged it
// true), or when its verdict is in $whole; otherwise only what a count of the assertions
// left out needs (id, verdict, passed, score, confidence, review, review_id), with
// whole: false: most assertions do not pass, and derivation reads nothing else of them.
// Read-only; facts and assertions come ordered, so derivation is deterministic.
// @param patients: list of patient ids
// @param whole: list of verdicts whose assertions come whole besides passed ones (null: all)
// @returns patient, facts, assertions
UNWIND $patients AS pid
MATCH (p:Patient {id: pid})
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_FACT]->(f:Fact)
  OPTIONAL MATCH (f)-[:RECORDED_IN]->(e:Encounter)
  OPTIONAL MATCH (f)-[:CODED_AS]->(c:Concept)
  WITH f, e, c ORDER BY f.start, f.kind, f.id
  WITH f, e, c WHERE f IS NOT NULL
  RETURN collect({
    id: f.id, kind: f.kind, display: f.display, code_system: f.code_system, code: f.code,
    // Dates as text (the driver builds no date objects; toString gives what str() of
    // its Date gives); other temporal values as they are. An episode's day is all
    // derivation reads of an encounter's start: its first ten characters.
    start: CASE WHEN f.start IS :: DATE THEN toString(f.start) ELSE f.start END,
    end: CASE WHEN f.end IS :: DATE THEN toString(f.end) ELSE f.end END,
    value: f.value, unit: f.unit, flag: f.flag,
    source_table: f.source_table, source_row: f.source_row,
    encounter: e.id, encounter_start: left(toString(e.start), 10), encounter_kind: e.kind,
    concept: c.id
  }) AS facts
}
CALL (p) {
  OPTIONAL MATCH (a:Assertion)-[:ABOUT]->(p)
  WITH a ORDER BY a.id
  WITH a WHERE a IS NOT NULL
  WITH a, coalesce(a.standing_verdict, a.verdict) AS verdict,
       coalesce(a.standing_passed, a.passed) AS passed
  WITH a, verdict, passed,
       coalesce($whole IS NULL OR passed OR a.review = 'true' OR verdict IN $whole, false)
       AS whole
  OPTIONAL MATCH (s:Concept {id: a.subject_id}) WHERE whole
  OPTIONAL MATCH (o:Concept {id: a.object_id}) WHERE whole
  RETURN collect(CASE WHEN NOT whole THEN {
    id: a.id, verdict: verdict, passed: passed, score: a.score, confidence: a.confidence,
    review: a.review, review_id: a.review_id, whole: false
  } ELSE {
    id: a.id, predicate: a.predicate, verdict: verdict, passed: passed, score: a.score,
    reason: a.reason, rule: a.rule, rule_version: a.rule_version, subject_id: a.subject_id,
    object_id: a.object_id, subject_name: s.name, object_name: o.name,
    encounter_id: a.encounter_id, confidence: a.confidence,
    evidence: coalesce(a.evidence, []), distractors: coalesce(a.distractors, []),
    review: a.review, review_id: a.review_id,
    facts: COLLECT {
      MATCH (a)-[:FROM_FACT]->(f:Fact)
      OPTIONAL MATCH (f)-[:CODED_AS]->(fc:Concept)
      RETURN {
        id: f.id,
        side: CASE
          WHEN fc IS NULL THEN null
          WHEN fc.id = a.subject_id OR EXISTS {
            MATCH (fc)-[:MAPS_TO*1..2]-(:Concept {id: a.subject_id}) } THEN "subject"
          WHEN fc.id = a.object_id OR EXISTS {
            MATCH (fc)-[:MAPS_TO*1..2]-(:Concept {id: a.object_id}) } THEN "object"
          ELSE null END
      } AS fact ORDER BY fact.id
    }, whole: true
  } END) AS assertions
}
RETURN properties(p) AS patient, facts, assertions
