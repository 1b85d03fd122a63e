// Marks the items of the given tasks that this derivation run did not produce (they came
// from an earlier run over a graph that has since changed) as no longer current; nothing
// is deleted, so an audit can still explain them.
// @param tasks: task names the run derived
// @param run: token of this derivation run
// @returns retired
OPTIONAL MATCH (i:Item)
WHERE i.task IN $tasks AND i.run <> $run AND i.current
SET i.current = false
RETURN count(i) AS retired
