// How far clinician review got, per task, and how often reviewers agreed with the engine
// (`kgverify review import`, docs/review.md): current items; items reviewed (a standing
// accept or reject, or a veto or relation decision that still applies: the distractor
// still offered, the relation still in the basis); accepted; rejected; items offering a
// vetoed distractor (the veto key is task, topic, distractor concept, so one veto reaches
// every item of that topic); distinct basis relations judged true and false; agreement,
// the share of reviewed items accepted with no reject and no veto; and relations judged
// false though the engine supported them (standing verdict supported). Retracted reviews
// do not count.
// @param reviewer: str = null: count only this reviewer's decisions
// @param include_replaced: bool = false: count items a later derivation replaced too
// @returns task, items, reviewed, accepted, rejected, vetoed, relations_true, relations_false, agreement, false_though_supported
MATCH (i:Item)
WHERE $include_replaced OR i.current
WITH i,
     [(v:Review)-[:ON_ITEM]->(i)
      WHERE NOT coalesce(v.retracted, false)
        AND ($reviewer IS NULL OR v.reviewer = $reviewer)
        AND (v.decision IN ["accept", "reject"]
             OR (v.decision = "veto"
                 AND EXISTS { (i)-[:DISTRACTOR]->(:Concept {id: v.concept}) })
             OR (v.decision IN ["relation_true", "relation_false"]
                 AND EXISTS { (i)-[:RESTS_ON]->(:Assertion {id: v.assertion}) })) | v]
       AS reviews
WITH i, reviews,
     any(v IN reviews WHERE v.decision = "accept") AS accepted,
     any(v IN reviews WHERE v.decision = "reject") AS rejected,
     EXISTS {
       MATCH (i)-[:DISTRACTOR]->(:Concept)<-[:VETOES]-(v:Review)
       WHERE NOT coalesce(v.retracted, false)
         AND ($reviewer IS NULL OR v.reviewer = $reviewer)
         AND ((v)-[:ON_ITEM]->(i) OR (v.task = i.task AND v.topic = i.topic))
     } AS vetoed,
     [(i)-[:RESTS_ON]->(a:Assertion)<-[:ON_ASSERTION]-(v:Review)
      WHERE v.decision = "relation_true" AND NOT coalesce(v.retracted, false)
        AND ($reviewer IS NULL OR v.reviewer = $reviewer) | a.id] AS judged_true,
     [(i)-[:RESTS_ON]->(a:Assertion)<-[:ON_ASSERTION]-(v:Review)
      WHERE v.decision = "relation_false" AND NOT coalesce(v.retracted, false)
        AND ($reviewer IS NULL OR v.reviewer = $reviewer) |
      {id: a.id, supported: coalesce(a.standing_verdict, a.verdict) = "supported"}] AS judged_false
WITH i.task AS task, count(i) AS items,
     sum(CASE WHEN size(reviews) > 0 THEN 1 ELSE 0 END) AS reviewed,
     sum(CASE WHEN accepted THEN 1 ELSE 0 END) AS accepted,
     sum(CASE WHEN rejected THEN 1 ELSE 0 END) AS rejected,
     sum(CASE WHEN vetoed THEN 1 ELSE 0 END) AS vetoed,
     sum(CASE WHEN size(reviews) > 0 AND accepted AND NOT rejected AND NOT vetoed
         THEN 1 ELSE 0 END) AS agreed,
     collect(judged_true) AS trues, collect(judged_false) AS falses
RETURN task, items, reviewed, accepted, rejected, vetoed,
       size(COLLECT { UNWIND trues AS t UNWIND t AS id RETURN DISTINCT id })
         AS relations_true,
       size(COLLECT { UNWIND falses AS f UNWIND f AS x RETURN DISTINCT x.id })
         AS relations_false,
       CASE WHEN reviewed = 0 THEN null ELSE round(toFloat(agreed) / reviewed, 4) END
         AS agreement,
       size(COLLECT { UNWIND falses AS f UNWIND f AS x WITH x WHERE x.supported
                      RETURN DISTINCT x.id }) AS false_though_supported
ORDER BY task
