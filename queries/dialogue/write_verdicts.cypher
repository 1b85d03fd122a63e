// Writes checked dialogues (check-dialogue, docs/dialogue.md) idempotently: one
// (:Dialogue {id}) per dialogue with its counts, linked to its patient (ABOUT), and one
// (:DialogueMention) per judged mention (HAS_MENTION), linked to its concept when it has one
// (MENTIONS). A re-check replaces the dialogue's mentions and patient edge. Text-free by
// design: ids, verdicts, kinds, sections, offsets and reasons without the patient's words;
// what the patient said stays in the verdicts JSONL.
// @param rows: list of {id, patient_id, encounter_id, found, turns, mentions, grounded, leak, contradicted, unsupported, unlinked, judged: list of {turn, start, end, verdict, kind, section, via, fact_id, concept_id, status, negated, hedged, hypothetical, experiencer, claimed, reason}}
// @returns written
UNWIND $rows AS row
MERGE (d:Dialogue {id: row.id})
SET d.patient_id = row.patient_id, d.encounter_id = row.encounter_id, d.found = row.found,
    d.turns = row.turns, d.mentions = row.mentions, d.grounded = row.grounded,
    d.leak = row.leak, d.contradicted = row.contradicted, d.unsupported = row.unsupported,
    d.unlinked = row.unlinked, d.checked_at = datetime()
WITH d, row
CALL (d) {
  MATCH (d)-[:HAS_MENTION]->(old:DialogueMention)
  DETACH DELETE old
}
CALL (d) {
  MATCH (d)-[old:ABOUT]->(:Patient)
  DELETE old
}
CALL (d, row) {
  MATCH (p:Patient {id: row.patient_id})
  MERGE (d)-[:ABOUT]->(p)
}
CALL (d, row) {
  UNWIND row.judged AS j
  CREATE (d)-[:HAS_MENTION]->(m:DialogueMention)
  SET m = j, m.dialogue_id = row.id
  WITH m, j
  MATCH (c:Concept {id: j.concept_id})
  CREATE (m)-[:MENTIONS]->(c)
}
RETURN count(*) AS written
