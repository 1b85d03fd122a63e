// Every judged relation with what a filter policy reads and what reviewers said: standing
// verdict, its score (the latest re-check's after a re-verification), the extractor's
// confidence, whether it passes the stored policy, the linked concepts' names, the current
// items resting on it, and the reviewers' label: false when a standing relation decision
// judged it false, true when one judged it true and none false, null when no reviewer
// judged it (retracted reviews do not count). The notebooks measure policies with it
// (kgverify.audit.quality: score distributions, per-policy precision against the labels).
// @param reviewer: str = null: labels from this reviewer's decisions only (null: every reviewer)
// @returns assertion, predicate, extractor, subject_text, object_text, subject, subject_name, object, object_name, verdict, score, confidence, passed, rule, label, reviews, items
MATCH (a:Assertion)
WITH a,
     [(v:Review)-[:ON_ASSERTION]->(a)
      WHERE v.decision IN ["relation_true", "relation_false"]
        AND NOT coalesce(v.retracted, false)
        AND ($reviewer IS NULL OR v.reviewer = $reviewer) | v.decision] AS judged
RETURN a.id AS assertion, a.predicate AS predicate, a.extractor AS extractor,
       a.subject_text AS subject_text, a.object_text AS object_text, a.subject_id AS subject,
       COLLECT { MATCH (a)-[:SUBJECT]->(s:Concept) RETURN s.name }[0] AS subject_name,
       a.object_id AS object,
       COLLECT { MATCH (a)-[:OBJECT]->(o:Concept) RETURN o.name }[0] AS object_name,
       coalesce(a.standing_verdict, a.verdict) AS verdict,
       coalesce(
         COLLECT { MATCH (a)-[:RECHECKED]->(c:Recheck {id: coalesce(a.recheck, a.rechecked_in + ":" + a.id)})
                   RETURN c.score }[0],
         a.score) AS score,
       a.confidence AS confidence, coalesce(a.standing_passed, a.passed) AS passed,
       a.rule AS rule,
       CASE WHEN "relation_false" IN judged THEN false
            WHEN "relation_true" IN judged THEN true END AS label,
       size(judged) AS reviews,
       COUNT { MATCH (i:Item)-[:RESTS_ON]->(a) WHERE i.current } AS items
ORDER BY assertion
