// The relations the filter kept out of derivation (their standing verdict fails the policy),
// optionally only one verdict, predicate, rule (id or family: "direct" matches
// direct.contradict) or extractor (name or name@version), with the reason and the evidence.
// @param verdict: str = null: one of VerdictKind (supported, contradicted, unsupported, ambiguous, unlinked, type_mismatch; null: all)
// @param predicate: str = null: one of Predicate (treats, contraindicated_for, indicates, leads_to; null: all)
// @param rule: str = null: deciding rule id or family (null: all)
// @param extractor: str = null: extractor name or name@version (null: all)
// @param limit: int = 50: at most this many rows (at least 0)
// @returns assertion, predicate, subject_text, object_text, subject, subject_name, object, object_name, verdict, rule, extractor, confidence, reason, evidence
MATCH (a:Assertion)
WHERE NOT coalesce(a.standing_passed, a.passed)
  AND ($verdict IS NULL OR coalesce(a.standing_verdict, a.verdict) = $verdict)
  AND ($predicate IS NULL OR a.predicate = $predicate)
  AND ($rule IS NULL OR a.rule = $rule OR a.rule STARTS WITH $rule + ".")
  AND ($extractor IS NULL OR a.extractor = $extractor OR a.extractor STARTS WITH $extractor + "@")
RETURN a.id AS assertion, a.predicate AS predicate, a.subject_text AS subject_text,
       a.object_text AS object_text, a.subject_id AS subject,
       COLLECT { MATCH (a)-[:SUBJECT]->(s:Concept) RETURN s.name }[0] AS subject_name,
       a.object_id AS object,
       COLLECT { MATCH (a)-[:OBJECT]->(o:Concept) RETURN o.name }[0] AS object_name,
       coalesce(a.standing_verdict, a.verdict) AS verdict, a.rule AS rule,
       a.extractor AS extractor, a.confidence AS confidence, a.reason AS reason,
       a.evidence AS evidence
ORDER BY verdict, predicate, assertion
LIMIT $limit
