// Claims no fact of the record is behind, by concept kind: the unsupported mentions the
// patient claims of themself (`claimed`: what the agent invented; denials of something
// unrecorded, suppositions and relatives' illnesses are left out, as in check-dialogue's
// report; mentions stored before `claimed` was, by their denial alone). Unsupported means the record is silent, not
// that the claim is false.
// @param dialogue: str = null: id of an existing dialogue; null: every dialogue
// @returns kind, concept, concept_name, claims, dialogues
MATCH (d:Dialogue)-[:HAS_MENTION]->(m:DialogueMention {verdict: "unsupported"})
WHERE coalesce(m.claimed, NOT m.negated) AND ($dialogue IS NULL OR d.id = $dialogue)
OPTIONAL MATCH (m)-[:MENTIONS]->(c:Concept)
RETURN m.kind AS kind, m.concept_id AS concept, c.name AS concept_name, count(m) AS claims,
       count(DISTINCT d) AS dialogues
ORDER BY kind, claims DESC, concept
