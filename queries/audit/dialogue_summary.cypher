// Mentions per verdict in each checked dialogue (`kgverify check-dialogue` writes them,
// docs/dialogue.md), counted from its stored mentions: grounded, leak, contradicted,
// unsupported (no fact in the record behind it, not false) and unlinked.
// @param dialogue: str = null: id of an existing dialogue; null: every dialogue
// @returns dialogue, patient, encounter, found, turns, mentions, grounded, leak, contradicted, unsupported, unlinked, checked_at
MATCH (d:Dialogue)
WHERE $dialogue IS NULL OR d.id = $dialogue
RETURN d.id AS dialogue, d.patient_id AS patient, d.encounter_id AS encounter, d.found AS found,
       d.turns AS turns,
       count { (d)-[:HAS_MENTION]->(:DialogueMention) } AS mentions,
       count { (d)-[:HAS_MENTION]->(:DialogueMention {verdict: "grounded"}) } AS grounded,
       count { (d)-[:HAS_MENTION]->(:DialogueMention {verdict: "leak"}) } AS leak,
       count { (d)-[:HAS_MENTION]->(:DialogueMention {verdict: "contradicted"}) } AS contradicted,
       count { (d)-[:HAS_MENTION]->(:DialogueMention {verdict: "unsupported"}) } AS unsupported,
       count { (d)-[:HAS_MENTION]->(:DialogueMention {verdict: "unlinked"}) } AS unlinked,
       toString(d.checked_at) AS checked_at
ORDER BY dialogue
