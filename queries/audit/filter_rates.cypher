// How much the hallucination filter lets through, per predicate and extractor: relations
// judged, how many passed and failed the policy, the pass rate, and the count of each
// verdict (standing verdicts, so a re-verification shows here).
// @returns predicate, extractor, relations, passed, filtered, pass_rate, supported, contradicted, unsupported, ambiguous, unlinked, type_mismatch
MATCH (a:Assertion)
WITH a.predicate AS predicate, a.extractor AS extractor,
     coalesce(a.standing_verdict, a.verdict) AS verdict,
     coalesce(a.standing_passed, a.passed) AS ok
WITH predicate, extractor, count(*) AS relations,
     sum(CASE WHEN ok THEN 1 ELSE 0 END) AS passed,
     sum(CASE WHEN verdict = "supported" THEN 1 ELSE 0 END) AS supported,
     sum(CASE WHEN verdict = "contradicted" THEN 1 ELSE 0 END) AS contradicted,
     sum(CASE WHEN verdict = "unsupported" THEN 1 ELSE 0 END) AS unsupported,
     sum(CASE WHEN verdict = "ambiguous" THEN 1 ELSE 0 END) AS ambiguous,
     sum(CASE WHEN verdict = "unlinked" THEN 1 ELSE 0 END) AS unlinked,
     sum(CASE WHEN verdict = "type_mismatch" THEN 1 ELSE 0 END) AS type_mismatch
RETURN predicate, extractor, relations, passed, relations - passed AS filtered,
       round(toFloat(passed) / relations, 4) AS pass_rate, supported, contradicted,
       unsupported, ambiguous, unlinked, type_mismatch
ORDER BY predicate, extractor
