// Publishes a derivation run's items, in one transaction so that either the earlier items
// or the run's are current, never both: the current items of the given tasks that the run
// did not write (they came from an earlier run over a graph that has since changed) are no
// longer current, and the items it wrote (pending_run = the run's token,
// derive/write_items) become current with the run's token, standing and without flags.
// Nothing is deleted, so an audit can still explain the retired items.
// @param tasks: task names the run derived
// @param run: token of this derivation run
// @returns retired, published
CALL () {
  OPTIONAL MATCH (i:Item)
  WHERE i.task IN $tasks AND i.current AND coalesce(i.pending_run, "") <> $run
  SET i.current = false
  RETURN count(i) AS retired
}
CALL () {
  OPTIONAL MATCH (i:Item {pending_run: $run})
  SET i.current = true, i.run = $run, i.standing = true, i.flags = [], i.flagged_in = null
  REMOVE i.pending_run
  RETURN count(i) AS published
}
RETURN retired, published
