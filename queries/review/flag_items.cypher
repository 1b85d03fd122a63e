// Flags the current items that reviewer decisions take away (standing = false, one readable
// entry per decision in flags, starting "review: " so that re-verification keeps it and
// ending "(review <id>)"): a rejected item and the current items of the same content key;
// every current item of the same task and topic offering a vetoed distractor (the veto key
// is task, topic, distractor concept), and the vetoed item itself; every current item
// resting on a relation judged false. Idempotent: an entry of the same review replaces the
// one already there (an edited reason), in place; the other flags stay (re-verification's
// too). Names concepts, never the record's mention texts.
// @param ids: ids of the standing reviews to apply
// @returns items, flagged: how many items the decisions touch, and the ids of those that changed
UNWIND $ids AS rid
MATCH (v:Review {id: rid})-[:ON_ITEM]->(reviewed:Item)
WHERE NOT coalesce(v.retracted, false) AND v.decision IN ["reject", "veto", "relation_false"]
CALL (v, reviewed) {
  WITH v, reviewed WHERE v.decision = "reject"
  MATCH (:Concept {id: v.concept})<-[:ANSWER]-(i:Item)
  WHERE i.current AND (i = reviewed OR (v.content_key IS NOT NULL
                                       AND i.content_key = v.content_key))
  RETURN i, CASE WHEN i = reviewed THEN "a reviewer rejected the item"
         ELSE "a reviewer rejected item " + reviewed.id + " of the same content" END AS what
  UNION
  WITH v, reviewed WHERE v.decision = "veto"
  MATCH (c:Concept {id: v.concept})<-[d:DISTRACTOR]-(i:Item)
  WHERE i.current AND (i = reviewed OR (v.topic IS NOT NULL AND i.task = v.task
                                       AND i.topic = v.topic))
  RETURN i, "a reviewer vetoed distractor " + d.label + " (" + coalesce(c.name, c.id) +
            ") as a defensible answer" AS what
  UNION
  WITH v, reviewed WHERE v.decision = "relation_false"
  MATCH (v)-[:ON_ASSERTION]->(a:Assertion)<-[:RESTS_ON]-(i:Item)
  WHERE i.current
  OPTIONAL MATCH (a)-[:SUBJECT]->(s:Concept)
  OPTIONAL MATCH (a)-[:OBJECT]->(o:Concept)
  RETURN i, "a reviewer judged relation " + a.id + " false (" +
            coalesce(s.name, a.subject_id, "?") + " " + a.predicate + " " +
            coalesce(o.name, a.object_id, "?") + ")" AS what
}
WITH i, v, "review: " + what + CASE WHEN v.reason IS NULL THEN "" ELSE ": " + v.reason END +
           " (review " + v.id + ")" AS entry, "(review " + v.id + ")" AS suffix
ORDER BY entry
WITH i, collect(DISTINCT {entry: entry, suffix: suffix}) AS pairs
WITH i, coalesce(i.flags, []) AS before, pairs
WITH i, before, pairs,
     [f IN before | coalesce(head([p IN pairs WHERE f ENDS WITH p.suffix | p.entry]), f)]
       AS updated
WITH i, before, updated + [p IN pairs WHERE NOT p.entry IN updated | p.entry] AS after
SET i.flags = after, i.standing = false
RETURN count(i) AS items, collect(CASE WHEN after <> before THEN i.id END) AS flagged
