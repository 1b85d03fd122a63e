// Links the patient facts that no concept coded when they were ingested (known = false) to
// the concept of their code, where a release just loaded brings it, as the ingest links a
// fact whose concept is there (CODED_AS, known = true): the graph is the same whichever
// came first, patients (a bulk ingest needs an empty database) or vocabularies. A concept
// id is NAMESPACE:code (kgverify.graph.model.concept_id). A fact with known = false has no
// CODED_AS edge, so CREATE adds the one edge. Fact by fact in batches of 10,000
// (auto-commit), so memory stays flat.
// @returns linked: facts linked now
MATCH (f:Fact)
WHERE f.known = false
CALL (f) {
  MATCH (c:Concept {id: f.code_system + ':' + f.code})
  CREATE (f)-[:CODED_AS]->(c)
  SET f.known = true
  RETURN 1 AS one
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(one) AS linked
