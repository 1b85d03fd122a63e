// Why does this item exist? Its full lineage, one row per assertion it rests on: the item
// (task, question, answer and distractor concepts, whether it is current and still stands),
// the assertion (the extracted relation: its relation_id, predicate, mention texts, linked
// concepts, the verdict it was given and its standing verdict after any re-verification, the
// deciding rule version, the extractor and its confidence), its evidence paths (EvidencePath JSON, best
// first) with the concepts on them, and the patient facts it was extracted from (source
// table and row), and its latest re-check after a newer release, if any (recheck: verdict,
// reason, run, checked_at). The item's distractor justifications come as stored (why_wrong,
// JSON: per distractor the rules, versions, reasons, cited edges with source and release),
// with its topic, content key, difficulty, vocabulary releases and filter policy.
// `kgverify prov ITEM` exports the same lineage as W3C PROV.
// @param item: str: id of the item (the item_id of the dataset row)
// @returns item, task, topic, content_key, why_wrong, difficulty, releases, policy, question, answer, answer_concept, answer_name, distractors, current, standing, flags, patient, template, assertion, relation_id, predicate, subject_text, object_text, subject, object, verdict, standing_verdict, rule, extractor, confidence, verified_at, evidence, evidence_concepts, facts, recheck
MATCH (i:Item {id: $item})-[:RESTS_ON]->(a:Assertion)
OPTIONAL MATCH (i)-[:ANSWER]->(answer:Concept)
RETURN i.id AS item, i.task AS task, i.topic AS topic, i.content_key AS content_key,
       coalesce(i.why_wrong, "[]") AS why_wrong, i.difficulty AS difficulty,
       coalesce(i.releases, []) AS releases, i.policy AS policy, i.question AS question, i.answer AS answer,
       i.answer_concept AS answer_concept, answer.name AS answer_name,
       [(i)-[d:DISTRACTOR]->(c:Concept) | {label: d.label, id: c.id, name: c.name}]
         AS distractors,
       i.current AS current, coalesce(i.standing, true) AS standing,
       coalesce(i.flags, []) AS flags, i.patient_id AS patient, i.template AS template,
       a.id AS assertion, coalesce(a.relation_id, a.id) AS relation_id,
       a.predicate AS predicate, a.subject_text AS subject_text,
       a.object_text AS object_text, a.subject_id AS subject, a.object_id AS object,
       a.verdict AS verdict, coalesce(a.standing_verdict, a.verdict) AS standing_verdict,
       a.rule + "@" + a.rule_version AS rule, a.extractor AS extractor,
       a.confidence AS confidence, toString(a.verified_at) AS verified_at,
       a.evidence AS evidence,
       [(a)-[:EVIDENCE]->(c:Concept) | {id: c.id, name: c.name, vocab: c.vocab}]
         AS evidence_concepts,
       [(a)-[:FROM_FACT]->(f:Fact) |
        {id: f.id, table: f.source_table, row: f.source_row,
         code: f.code_system + ":" + f.code, display: f.display}] AS facts,
       COLLECT {
         MATCH (a)-[:RECHECKED]->(c:Recheck)-[:IN_RUN]->(run:Reverification)
         WITH c, run ORDER BY c.checked_at DESC
         RETURN {id: c.id, verdict: c.verdict, passed: c.passed, reason: c.reason,
                 run: run.id, checked_at: toString(c.checked_at)}
       }[0] AS recheck
ORDER BY assertion
