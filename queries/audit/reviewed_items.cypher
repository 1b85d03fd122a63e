// The items reviewers accepted or rejected, with what a filter policy reads of the relations
// each rests on: per current item with a standing accept or reject (`kgverify review
// import`, docs/review.md), its task, the decision (a reject wins over an accept), how many
// such reviews, and its basis relations with standing verdict, score (the latest
// re-check's after a re-verification) and the extractor's confidence. A policy keeps an
// item when it lets every relation of its basis through (kgverify.audit.quality).
// @param reviewer: str = null: this reviewer's decisions only (null: every reviewer)
// @returns item, task, decision, reviews, basis
MATCH (i:Item)
WHERE i.current
WITH i,
     [(v:Review)-[:ON_ITEM]->(i)
      WHERE v.decision IN ["accept", "reject"] AND NOT coalesce(v.retracted, false)
        AND ($reviewer IS NULL OR v.reviewer = $reviewer) | v.decision] AS decisions
WHERE size(decisions) > 0
RETURN i.id AS item, i.task AS task,
       CASE WHEN "reject" IN decisions THEN "reject" ELSE "accept" END AS decision,
       size(decisions) AS reviews,
       COLLECT {
         MATCH (i)-[:RESTS_ON]->(a:Assertion)
         RETURN {assertion: a.id, verdict: coalesce(a.standing_verdict, a.verdict),
                 score: coalesce(
                   COLLECT { MATCH (a)-[:RECHECKED]->(c:Recheck {id: coalesce(a.recheck, a.rechecked_in + ":" + a.id)})
                             RETURN c.score }[0],
                   a.score),
                 confidence: a.confidence} AS relation
         ORDER BY relation.assertion
       } AS basis
ORDER BY item
