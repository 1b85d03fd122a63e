// What an agent's action is judged against (kgverify check-actions, docs/fhir.md): the
// patient's conditions and drugs active on $as_of, each a fact with the concept it is coded
// as. A condition is active when it began on or before $as_of and has no end or ends on or
// after it; so is a drug exposure (a one-day prescription is active on its day only). Facts
// whose code the vocabularies lack (no CODED_AS) come without a concept. Read-only.
// @param patient: a patient id (pseudonym)
// @param as_of: ISO date (YYYY-MM-DD); facts are compared by their first 10 characters
// @returns found, facts: list of {id, kind, concept, display, code_system, code, start, end}
OPTIONAL MATCH (p:Patient {id: $patient})
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_FACT]->(f:Fact)
  WHERE f.kind IN ["condition", "drug"]
    AND f.start IS NOT NULL AND left(toString(f.start), 10) <= $as_of
    AND (f.end IS NULL OR left(toString(f.end), 10) >= $as_of)
  OPTIONAL MATCH (f)-[:CODED_AS]->(c:Concept)
  WITH f, c ORDER BY f.kind, f.start, f.id
  WITH f, c WHERE f IS NOT NULL
  RETURN collect({id: f.id, kind: f.kind, concept: c.id, display: f.display,
                  code_system: f.code_system, code: f.code,
                  start: toString(f.start), end: toString(f.end)}) AS facts
}
RETURN p IS NOT NULL AS found, facts
