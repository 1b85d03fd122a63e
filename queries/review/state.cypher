// Every standing (not retracted) reviewer decision, for derivation and re-verification to
// respect (kgverify.review.state.ReviewState): its decision, the item's task, topic and
// content key, the vetoed or answer concept, the judged assertion, reviewer and round.
// Reviews are made by people, so all of them fit in memory.
// @returns id, decision, item, task, topic, concept, content_key, assertion, reviewer, round
MATCH (v:Review)
WHERE NOT coalesce(v.retracted, false)
RETURN v.id AS id, v.decision AS decision, v.item AS item, v.task AS task,
       v.topic AS topic, v.concept AS concept, v.content_key AS content_key,
       v.assertion AS assertion, v.reviewer AS reviewer, v.round AS round
ORDER BY id
