// The causative agents of the given conditions and the agents' is-a ancestors, for the
// diagnosis justification that an anti-infective started points away from a cause of
// another kind (kgverify/derive/justify.py, ``agent_mismatch``): SNOMED CT's causative
// agent attribute (CAUSATIVE_AGENT, "Viral sinusitis" -> Virus), on the condition or one
// MAPS_TO step away, each as the cited edge with its source (sab) and release, and the ids
// of the agent and its active ancestors up to 6 is-a steps (across MAPS_TO), where the
// kingdom ("Virus", "Domain Bacteria") is read. Only active concepts and edges. Read-only.
// @param ids: list of condition concept ids
// @returns id, agents (each: the cited edge and `up`, the agent's ancestor ids)
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})
MATCH (c)-[:MAPS_TO*0..1]-(x:Concept)-[r:CAUSATIVE_AGENT]->(a:Concept)
WHERE coalesce(r.active, true) AND coalesce(a.active, true)
CALL (a) {
  OPTIONAL MATCH p = (a)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*0..6]->(:Concept)-[:MAPS_TO*0..1]-(u:Concept)
  WHERE coalesce(u.active, true) AND all(e IN relationships(p) WHERE coalesce(e.active, true))
  RETURN collect(DISTINCT u.id) AS up
}
WITH c, x, r, a, up ORDER BY a.id, x.id, r.sab
RETURN c.id AS id,
       collect({start: x.id, start_name: x.name, type: type(r), end: a.id, end_name: a.name,
                source: r.sab, release: coalesce(r.release, r.first_release),
                up: up}) AS agents
