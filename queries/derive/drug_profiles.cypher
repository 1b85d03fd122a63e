// What the vocabularies say about drugs, for the treatment and diagnosis justifications
// (kgverify/derive/justify.py). For each drug concept: the drug side (the concept, its
// MAPS_TO group, and its ingredients up to 3 RxNorm steps: TRADENAME_OF, CONSISTS_OF,
// HAS_INGREDIENT, HAS_PRECISE_INGREDIENT, FORM_OF, crossing MAPS_TO, as the `ingredient`
// rule normalizes); its classes (active non-hub is-a ancestors, 1 to 3 steps, of the
// ingredients and substances on the drug side, e.g. an ATC group or a SNOMED CT substance
// class); the conditions the drug side or a class may treat or prevent (MAY_TREAT,
// MAY_PREVENT) and those it is contraindicated for (CONTRAINDICATED_FOR), each as the
// cited edge with its source vocabulary (sab) and release; the WHO ATC codes (ATC:...) of
// the drug side and of each class, one MAPS_TO step away (the therapeutic area, a class's
// level). Only active concepts and edges. Read-only.
// @param ids: list of drug concept ids
// @param hubs: map from the id of every general concept (hub) to true
// @returns id, name, side, atc, classes, indications, contraindications
UNWIND $ids AS did
MATCH (d:Concept {id: did})
CALL (d) {
  MATCH (d)-[:MAPS_TO*0..1]-(:Concept)
        -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]->
        (:Concept)-[:MAPS_TO*0..1]-(i:Concept)
  WHERE coalesce(i.active, true)
  RETURN collect(DISTINCT i) AS side
}
CALL (side) {
  UNWIND side AS i
  MATCH p = (i)-[:IS_A*1..3]->(k:Concept)
  WHERE any(x IN coalesce(i.kinds, []) WHERE x IN ["ingredient", "substance"])
    AND coalesce(k.active, true)
    AND all(r IN relationships(p) WHERE coalesce(r.active, true))
    AND all(n IN tail(nodes(p)) WHERE $hubs[n.id] IS NULL)
  RETURN collect(DISTINCT k) AS classes
}
CALL (side, classes) {
  UNWIND side + classes AS x
  MATCH (x)-[r:MAY_TREAT|MAY_PREVENT]->(t:Concept)
  WHERE coalesce(r.active, true) AND coalesce(t.active, true)
  WITH DISTINCT x, r, t ORDER BY t.id, x.id, type(r), r.sab
  RETURN collect({start: x.id, start_name: x.name, type: type(r), end: t.id, end_name: t.name,
                  source: r.sab, release: coalesce(r.release, r.first_release)})
         AS indications
}
CALL (side, classes) {
  UNWIND side + classes AS x
  MATCH (x)-[r:CONTRAINDICATED_FOR]->(t:Concept)
  WHERE coalesce(r.active, true) AND coalesce(t.active, true)
  WITH DISTINCT x, r, t ORDER BY t.id, x.id, type(r), r.sab
  RETURN collect({start: x.id, start_name: x.name, type: type(r), end: t.id, end_name: t.name,
                  source: r.sab, release: coalesce(r.release, r.first_release)})
         AS contraindications
}
RETURN d.id AS id, d.name AS name, [i IN side | i.id] AS side,
       reduce(codes = [], i IN side |
              codes + [(i)-[:MAPS_TO]-(a:Concept) WHERE a.id STARTS WITH "ATC:" | a.id]) AS atc,
       [k IN classes | {id: k.id, name: k.name,
                        atc: [(k)-[:MAPS_TO]-(a:Concept) WHERE a.id STARTS WITH "ATC:" | a.id]}]
         AS classes,
       indications, contraindications
