// Takes back the flags of retracted reviews: removes every flag entry ending
// "(review <id>)" from the items those reviews could have flagged (the item reviewed, the
// items answering or offering the review's concept, the items resting on its assertion);
// an item left with no flag stands again. Other flags (re-verification's) stay.
// @param ids: ids of the retracted reviews
// @returns unflagged: ids of the items that lost a flag
UNWIND $ids AS rid
MATCH (v:Review {id: rid})
CALL (v) {
  MATCH (v)-[:ON_ITEM]->(i:Item)
  RETURN i
  UNION
  MATCH (:Concept {id: v.concept})<-[:ANSWER|DISTRACTOR]-(i:Item)
  RETURN i
  UNION
  MATCH (v)-[:ON_ASSERTION]->(:Assertion)<-[:RESTS_ON]-(i:Item)
  RETURN i
}
WITH i, collect(DISTINCT "(review " + v.id + ")") AS suffixes
WITH i, coalesce(i.flags, []) AS before, suffixes
WITH i, before, [f IN before WHERE none(s IN suffixes WHERE f ENDS WITH s)] AS after
WHERE size(after) < size(before)
SET i.flags = after, i.standing = size(after) = 0
RETURN collect(i.id) AS unflagged
