// What the simulated patients leaked, per dialogue: record-only facts they said (the
// diagnosis to be found, another condition of the visit, a lab, a procedure) by fact-sheet
// section, or `code` for a record's code said aloud, with the concept and how often.
// @param dialogue: str = null: id of an existing dialogue; null: every dialogue
// @returns dialogue, patient, encounter, section, concept, concept_name, leaks, turns
MATCH (d:Dialogue)-[:HAS_MENTION]->(m:DialogueMention {verdict: "leak"})
WHERE $dialogue IS NULL OR d.id = $dialogue
OPTIONAL MATCH (m)-[:MENTIONS]->(c:Concept)
WITH d, m, c,
     CASE WHEN m.kind = "code" THEN "code" ELSE coalesce(m.section, "?") END AS section
RETURN d.id AS dialogue, d.patient_id AS patient, d.encounter_id AS encounter, section,
       m.concept_id AS concept, c.name AS concept_name, count(m) AS leaks,
       collect(DISTINCT m.turn) AS turns
ORDER BY dialogue, leaks DESC, section, concept
