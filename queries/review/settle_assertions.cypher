// Sets an assertion's review mark from the standing (not retracted) relation decisions on
// it: review = "false" when any reviewer judged it false, else "true" when one judged it
// true (true though the rules found no support), else no mark; review_id is the deciding
// review (the smallest id of that judgement, so the mark does not depend on import order).
// @param ids: ids of the assertions to settle
// @returns id, review, review_id
UNWIND $ids AS aid
MATCH (a:Assertion {id: aid})
WITH a, [(v:Review)-[:ON_ASSERTION]->(a) WHERE NOT coalesce(v.retracted, false) | v] AS reviews
WITH a,
     [v IN reviews WHERE v.decision = "relation_false" | v.id] AS falses,
     [v IN reviews WHERE v.decision = "relation_true" | v.id] AS trues
WITH a, CASE WHEN size(falses) > 0 THEN "false" WHEN size(trues) > 0 THEN "true" END AS review,
     CASE WHEN size(falses) > 0 THEN falses ELSE trues END AS ids
SET a.review = review,
    a.review_id = CASE WHEN review IS NULL THEN null
                  ELSE reduce(m = head(ids), x IN ids | CASE WHEN x < m THEN x ELSE m END) END
RETURN a.id AS id, a.review AS review, a.review_id AS review_id
