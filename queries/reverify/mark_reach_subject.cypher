// Walks back from every concept the run marked changed to the concepts whose drug
// normalization reaches it, and marks them touched_as_subject: a relation whose subject is
// one of them may be judged differently, so its assertions are marked touched_by too. The rules go forward from the subject one MAPS_TO
// step, up to 3 TRADENAME_OF / CONSISTS_OF / HAS_INGREDIENT / HAS_PRECISE_INGREDIENT /
// FORM_OF steps and one MAPS_TO step (queries/verify/*.cypher); this is that walk
// reversed (kgverify/verify/rules.py `reach("subject")`: the cover of every rule's declared
// subject walk; tests/unit/test_rule_walks.py checks it step by step), over retired edges
// too (they were readable before). Batched in their own
// transactions (needs an auto-commit transaction).
// @param run: token of the re-verification run
// @returns n: changed concepts walked from
MATCH (c:Concept)
WHERE c.touched_by = $run
CALL (c) {
  MATCH (c)-[:MAPS_TO*0..1]-(:Concept)
        <-[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]-
        (:Concept)-[:MAPS_TO*0..1]-(s:Concept)
  WITH DISTINCT s
  SET s.touched_as_subject = $run
  WITH s
  MATCH (s)<-[:SUBJECT]-(a:Assertion)
  SET a.touched_by = $run
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(c) AS n
