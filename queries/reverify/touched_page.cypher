// One page, in id order, of the assertions a re-verification run marked touched
// (reverify/mark_reach_*, reverify/mark_evidence), with what re-checking needs: linked
// concepts, predicate, confidence, the standing verdict (or, when a run over the same
// releases already re-checked it, the verdict that recheck replaced: a rerun after a killed
// run reports what a clean run would), its evidence edges, and how it was judged
// ("evidence" by the rules, "links" by a side's link status, which a release does not
// change).
// @param run: token of the re-verification run
// @param after: the last id of the previous page ("" for the first)
// @param limit: page size
// @param key: key of the set of releases re-checked (reverify.recheck_key)
// @returns id, subject, object, predicate, confidence, judged, verdict, passed, evidence_edges
MATCH (a:Assertion)
WHERE a.touched_by = $run AND a.id > $after
WITH a ORDER BY a.id LIMIT $limit
OPTIONAL MATCH (c:Recheck {id: $key + ":" + a.id})
RETURN a.id AS id, a.subject_id AS subject, a.object_id AS object, a.predicate AS predicate,
       a.confidence AS confidence, coalesce(a.judged, "evidence") AS judged,
       coalesce(c.previous_verdict, a.standing_verdict, a.verdict) AS verdict,
       coalesce(c.previous_passed, a.standing_passed, a.passed) AS passed,
       coalesce(a.evidence_edges, []) AS evidence_edges
