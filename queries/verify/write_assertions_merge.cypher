// write_assertions for a batch that repeats an assertion id (the same relation twice in one
// batch): every edge merged, so a repeated row adds none. Writes verdicts back as
// provenance, idempotently: one (:Assertion {id}) per relation, the
// id being the relation_id when that is the relation's content hash, else relation_id + "#"
// + content hash (an id reused for another relation never replaces an assertion), with
// relation_id kept as a property; its properties replaced on every run, linked to the
// patient (ABOUT), to the patient facts it rests on (FROM_FACT: fact id = patient source +
// ":" + item id), to the encounter (SEEN_IN), to the linked concepts (SUBJECT, OBJECT), to
// every concept on its evidence paths (EVIDENCE) and to the rule version that decided it
// (DECIDED_BY a (:Rule {key: "<id>@<version>"})), with the enrichment's distractor pool
// (ids) kept on the assertion for derivation. The edges of its evidence paths are kept as
// "start|TYPE|end" keys (audit and re-verification look them up), with the current releases
// it was judged against and whether the rules decided it (judged = "evidence") or its links
// did ("links"); standing_verdict and standing_passed start equal to verdict and passed and
// are what `kgverify reverify` updates. Old edges of a rerun are removed first, so a
// re-verification never leaves stale evidence.
// @param rows: list of {id, relation_id, patient_id, encounter_id, predicate, verdict, score, passed, rule, rule_version, reason, subject_id, object_id, subject_text, object_text, items, evidence_nodes, evidence, distractors, extractor, confidence, index, verified_at, evidence_edges, judged}
// @param releases: ids of the current vocabulary releases
// @returns written, unknown_patients, unknown_encounters: assertions written, and how many name a patient or an encounter the graph does not hold (reported, still written)
UNWIND $rows AS row
MERGE (a:Assertion {id: row.id})
SET a.relation_id = row.relation_id, a.patient_id = row.patient_id,
    a.encounter_id = row.encounter_id, a.predicate = row.predicate, a.verdict = row.verdict,
    a.score = row.score, a.passed = row.passed, a.rule = row.rule, a.rule_version = row.rule_version,
    a.reason = row.reason, a.subject_id = row.subject_id, a.object_id = row.object_id,
    a.subject_text = row.subject_text, a.object_text = row.object_text,
    a.evidence = row.evidence, a.distractors = row.distractors,
    a.extractor = row.extractor, a.confidence = row.confidence,
    a.link_index = row.index, a.verified_at = datetime(row.verified_at),
    a.evidence_edges = row.evidence_edges, a.judged = row.judged, a.releases = $releases,
    a.standing_verdict = row.verdict, a.standing_passed = row.passed, a.rechecked_in = null,
    a.recheck = null
WITH a, row
CALL (a) {
  MATCH (a)-[old:ABOUT|SEEN_IN|FROM_FACT|SUBJECT|OBJECT|EVIDENCE|DECIDED_BY]->()
  DELETE old
}
OPTIONAL MATCH (p:Patient {id: row.patient_id})
CALL (a, p, row) {
  WITH a, p, row WHERE p IS NOT NULL
  MERGE (a)-[:ABOUT]->(p)
  WITH a, p, row
  UNWIND row.items AS item
  MATCH (f:Fact {id: p.source + ":" + item})
  MERGE (a)-[:FROM_FACT]->(f)
}
CALL (a, row) {
  MATCH (s:Concept {id: row.subject_id})
  MERGE (a)-[:SUBJECT]->(s)
}
CALL (a, row) {
  MATCH (o:Concept {id: row.object_id})
  MERGE (a)-[:OBJECT]->(o)
}
CALL (a, row) {
  UNWIND row.evidence_nodes AS node
  MATCH (c:Concept {id: node})
  MERGE (a)-[:EVIDENCE]->(c)
}
CALL (a, row) {
  WITH a, row WHERE row.rule IS NOT NULL
  MERGE (r:Rule {key: row.rule + "@" + row.rule_version})
  ON CREATE SET r.id = row.rule, r.version = row.rule_version
  MERGE (a)-[:DECIDED_BY]->(r)
}
OPTIONAL MATCH (e:Encounter {id: row.encounter_id})
CALL (a, e) {
  WITH a, e WHERE e IS NOT NULL
  MERGE (a)-[:SEEN_IN]->(e)
}
RETURN count(DISTINCT a) AS written, count(*) - count(p) AS unknown_patients,
       sum(CASE WHEN row.encounter_id IS NOT NULL AND e IS NULL THEN 1 ELSE 0 END)
         AS unknown_encounters
