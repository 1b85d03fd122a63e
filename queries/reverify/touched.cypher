// Which (subject, object) pairs the rules would read differently after a change: a pair is
// touched when its subject is marked touched_as_subject or its object touched_as_object by
// the run (reverify/mark_reach_*: their rule walks reach a changed concept). Every edge a
// rule can use has an end on those walks, so an untouched pair gets the same paths. Used
// for the distractor checks of items; two lookups per pair, read-only.
// @param rows: list of {rid, subject, object}: concept ids of the pair
// @param run: token of the re-verification run
// @returns rid of each touched row
UNWIND $rows AS row
OPTIONAL MATCH (s:Concept {id: row.subject})
OPTIONAL MATCH (o:Concept {id: row.object})
WITH row, s, o
WHERE s.touched_as_subject = $run OR o.touched_as_object = $run
RETURN row.rid AS rid
