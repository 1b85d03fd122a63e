// The general concepts that never count as evidence: SNOMED CT's top concept and the
// concepts within $depth is-a levels below it ("Clinical finding", "Disease", "Substance",
// ...), every concept with at least $min_children is-a children, and the configured extra
// ids; each with the concepts one MAPS_TO step away (the CUI of "Disease"). A path through
// "Disease" proves nothing. Read-only; run once per Verifier.
// @param root: SNOMED CT's top concept id, "SNOMEDCT:138875005"
// @param depth: levels below the root that are hubs, 0 to 3
// @param min_children: a concept with this many is-a children is a hub
// @param extra: further hub ids from configuration
// @returns id
CALL () {
  MATCH p = (h:Concept)-[:IS_A*0..3]->(:Concept {id: $root})
  WHERE length(p) <= $depth
  RETURN h
  UNION
  MATCH (h:Concept)
  WHERE COUNT { (h)<-[:IS_A]-() } >= $min_children
  RETURN h
  UNION
  MATCH (h:Concept) WHERE h.id IN $extra
  RETURN h
}
MATCH (h)-[:MAPS_TO*0..1]-(e:Concept)
RETURN DISTINCT e.id AS id
ORDER BY id
