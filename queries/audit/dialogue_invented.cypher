// Claims no fact of the record is behind, by concept kind: the affirmed unsupported mentions
// of the checked dialogues (what the agent invented; denials of something unrecorded are
// left out, as in check-dialogue's report). Unsupported means the record is silent, not
// that the claim is false.
// @param dialogue: str = null: id of an existing dialogue; null: every dialogue
// @returns kind, concept, concept_name, claims, dialogues
MATCH (d:Dialogue)-[:HAS_MENTION]->(m:DialogueMention {verdict: "unsupported"})
WHERE NOT m.negated AND ($dialogue IS NULL OR d.id = $dialogue)
OPTIONAL MATCH (m)-[:MENTIONS]->(c:Concept)
RETURN m.kind AS kind, m.concept_id AS concept, c.name AS concept_name, count(m) AS claims,
       count(DISTINCT d) AS dialogues
ORDER BY kind, claims DESC, concept
