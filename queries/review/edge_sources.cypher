// Where the vocabulary edges drawn on review pages come from: for each {start, type, end}
// (the stored direction of an evidence path's edge), every relationship of that type
// between the two concepts, with the source vocabulary that asserts it (sab), the release
// that first loaded it and the latest release that loaded it, whether it is active, and
// the two concepts' names. The type is compared with type(r), never pasted into the text;
// callers pass only kgverify.graph.model.RelType values. An edge the graph no longer holds
// gives an empty sources list.
// @param edges: list of {start, type, end}
// @returns start, type, end, start_name, end_name, sources (list of {sab, first_release, release, active})
UNWIND $edges AS e
OPTIONAL MATCH (a:Concept {id: e.start})
OPTIONAL MATCH (b:Concept {id: e.end})
RETURN e.start AS start, e.type AS type, e.end AS end, a.name AS start_name,
       b.name AS end_name,
       COLLECT {
         MATCH (a)-[r]->(b) WHERE type(r) = e.type
         WITH r ORDER BY r.sab, r.first_release
         RETURN {sab: r.sab, first_release: r.first_release, release: r.release,
                 active: coalesce(r.active, true)}
       } AS sources
