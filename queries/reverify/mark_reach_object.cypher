// Walks back from every concept the run marked changed to the concepts whose is-a climb
// reaches it, and marks them touched_as_object: a relation whose object is one of them may
// be judged differently, so its assertions are marked touched_by too. The rules climb from the object one MAPS_TO step, up to
// $max_depth IS_A steps through no hub, and one MAPS_TO step (queries/verify/*.cypher);
// this is that climb reversed (kgverify/verify/rules.py `reach("object")`, checked by
// tests/unit/test_rule_walks.py; every node above the object must be a non-hub, as there),
// over retired edges too. Batched in their own transactions (needs an auto-commit
// transaction).
// @param run: token of the re-verification run
// @param hubs: map from the id of every hub concept to true
// @param max_depth: is-a steps the rules climb above an object, at most 4
// @returns n: changed concepts walked from
MATCH (c:Concept)
WHERE c.touched_by = $run
CALL (c) {
  MATCH (c)-[:MAPS_TO*0..1]-(x:Concept)
  MATCH pa = (x)<-[:IS_A*0..4]-(y:Concept)
  WHERE length(pa) <= $max_depth AND all(n IN nodes(pa)[0..-1] WHERE $hubs[n.id] IS NULL)
  MATCH (y)-[:MAPS_TO*0..1]-(o:Concept)
  WITH DISTINCT o
  SET o.touched_as_object = $run
  WITH o
  MATCH (o)<-[:OBJECT]-(a:Assertion)
  SET a.touched_by = $run
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(c) AS n
