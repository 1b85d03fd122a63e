// Why does this item exist? Its full lineage, one row per assertion it rests on: the item
// (task, question, answer and distractor concepts, whether it is current and still stands),
// the assertion (the extracted relation: its relation_id, predicate, mention texts, linked
// concepts, the verdict it was given and its standing verdict after any re-verification, the
// deciding rule version, the extractor and its confidence), its evidence paths (EvidencePath JSON, best
// first) with the concepts on them, and the patient facts it was extracted from (source
// table and row), and its latest re-check after a newer release, if any (recheck: verdict,
// reason, run, checked_at). The item's distractor justifications come as stored (why_wrong,
// JSON: per distractor the rules, versions, reasons, cited edges with source and release),
// with its topic, content key, difficulty, vocabulary releases and filter policy, its options
// (JSON: label, concept_id, text) and distractor checks (JSON: the rule checks every distractor
// failed, slot, fixed concept and predicate), the concepts of the patient facts it shows
// (fact_concepts: id, name, vocab; the clues the checks name). Each evidence edge comes with what loaded it
// (evidence_edges: start and end with names, type, sab: the source that asserts it, vocab,
// release, active), so a path reads "Diclofenac -[MAY_TREAT, MED-RT, UMLS 2025AA]-> ...".
// `kgverify prov ITEM` exports the same lineage as W3C PROV.
// @param item: str: id of an existing item (the item_id of the dataset row)
// @returns item, task, topic, content_key, why_wrong, options, checks, fact_concepts, difficulty, releases, policy, question, answer, answer_concept, answer_name, distractors, current, standing, flags, patient, template, assertion, relation_id, predicate, subject_text, object_text, subject, subject_name, object, object_name, verdict, standing_verdict, rule, extractor, confidence, verified_at, evidence, evidence_edges, evidence_concepts, facts, recheck
MATCH (i:Item {id: $item})-[:RESTS_ON]->(a:Assertion)
OPTIONAL MATCH (i)-[:ANSWER]->(answer:Concept)
RETURN i.id AS item, i.task AS task, i.topic AS topic, i.content_key AS content_key,
       coalesce(i.why_wrong, "[]") AS why_wrong, coalesce(i.options, "[]") AS options,
       coalesce(i.checks, "[]") AS checks,
       [(i)-[:FROM_FACT]->(:Fact)-[:CODED_AS]->(c:Concept) | {id: c.id, name: c.name, vocab: c.vocab}]
         AS fact_concepts, i.difficulty AS difficulty,
       coalesce(i.releases, []) AS releases, i.policy AS policy, i.question AS question, i.answer AS answer,
       i.answer_concept AS answer_concept, answer.name AS answer_name,
       [(i)-[d:DISTRACTOR]->(c:Concept) | {label: d.label, id: c.id, name: c.name}]
         AS distractors,
       i.current AS current, coalesce(i.standing, true) AS standing,
       coalesce(i.flags, []) AS flags, i.patient_id AS patient, i.template AS template,
       a.id AS assertion, coalesce(a.relation_id, a.id) AS relation_id,
       a.predicate AS predicate, a.subject_text AS subject_text,
       a.object_text AS object_text, a.subject_id AS subject,
       COLLECT { MATCH (a)-[:SUBJECT]->(s:Concept) RETURN s.name }[0] AS subject_name,
       a.object_id AS object,
       COLLECT { MATCH (a)-[:OBJECT]->(o:Concept) RETURN o.name }[0] AS object_name,
       a.verdict AS verdict, coalesce(a.standing_verdict, a.verdict) AS standing_verdict,
       a.rule + "@" + a.rule_version AS rule, a.extractor AS extractor,
       a.confidence AS confidence, toString(a.verified_at) AS verified_at,
       a.evidence AS evidence,
       COLLECT {
         UNWIND coalesce(a.evidence_edges, []) AS key
         WITH split(key, "|") AS k
         MATCH (s:Concept {id: k[0]})-[r]->(e:Concept {id: k[2]})
         WHERE type(r) = k[1]
         RETURN {start: k[0], start_name: s.name, type: k[1], end: k[2], end_name: e.name,
                 sab: r.sab, vocab: r.source, release: r.release, active: r.active}
         ORDER BY k[0], k[1], k[2], r.sab
       } AS evidence_edges,
       [(a)-[:EVIDENCE]->(c:Concept) | {id: c.id, name: c.name, vocab: c.vocab}]
         AS evidence_concepts,
       [(a)-[:FROM_FACT]->(f:Fact) |
        {id: f.id, table: f.source_table, row: f.source_row,
         code: f.code_system + ":" + f.code, display: f.display, kind: f.kind,
         start: toString(f.start), value: coalesce(toString(f.value), f.value_text),
         unit: f.unit}] AS facts,
       COLLECT {
         MATCH (a)-[:RECHECKED]->(c:Recheck)-[:IN_RUN]->(run:Reverification)
         WITH c, run ORDER BY c.checked_at DESC
         RETURN {id: c.id, verdict: c.verdict, passed: c.passed, reason: c.reason,
                 run: run.id, checked_at: toString(c.checked_at)}
       }[0] AS recheck
ORDER BY assertion
