// Forgets checked dialogues (kgverify forget-dialogues, docs/dialogue.md): each
// (:Dialogue) of the given ids with its (:DialogueMention) nodes and their edges, so the
// dialogue_* audit queries no longer count them. The verdicts JSONL files are not touched.
// The caller checks first that every id exists (dialogue/existing); an id that does not
// is skipped here and comes back with found = false.
// @param ids: dialogue ids, one batch
// @returns id, found, mentions (mention nodes removed)
UNWIND $ids AS id
OPTIONAL MATCH (d:Dialogue {id: id})
WITH id, d, d IS NOT NULL AS found
CALL (d) {
  OPTIONAL MATCH (d)-[:HAS_MENTION]->(m:DialogueMention)
  DETACH DELETE m
  RETURN count(m) AS mentions
}
DETACH DELETE d
RETURN id, found, mentions
