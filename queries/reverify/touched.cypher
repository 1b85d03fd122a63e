// Which (subject, object) pairs the rules would read differently after a change: a pair is
// touched when its subject is marked touched_as_subject, its object touched_as_object
// (reverify/mark_reach_*: their rule walks reach a changed concept), or one of its evidence
// concepts was itself marked changed (touched_by). Every edge a rule can use has an end on
// those walks, so an untouched pair gets the same paths. Three lookups per pair; read-only.
// @param rows: list of {rid, subject, object, nodes}: concept ids of the pair, nodes = its evidence concepts
// @param run: token of the re-verification run
// @returns rid of each touched row
UNWIND $rows AS row
OPTIONAL MATCH (s:Concept {id: row.subject})
OPTIONAL MATCH (o:Concept {id: row.object})
WITH row, s, o
WHERE s.touched_as_subject = $run OR o.touched_as_object = $run
   OR EXISTS {
        MATCH (c:Concept)
        WHERE c.id IN row.nodes AND c.touched_by = $run
      }
RETURN row.rid AS rid
