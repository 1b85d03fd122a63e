// Clears, a page at a time, what derivation runs killed between writing their items and
// publishing them (derive/publish_items) left behind: the items they created, never
// current, are deleted with their edges; items that existed before keep whether they are
// current and lose the marker. Items of the given run are left alone.
// @param run: token of the derivation run about to write (its pending items are kept)
// @param limit: at most this many items per call
// @returns cleared
MATCH (i:Item)
WHERE i.pending_run IS NOT NULL AND i.pending_run <> $run
WITH i LIMIT $limit
WITH collect(i) AS found
CALL (found) {
  UNWIND found AS i
  WITH i WHERE i.run IS NOT NULL
  REMOVE i.pending_run
}
CALL (found) {
  UNWIND found AS i
  WITH i WHERE i.run IS NULL
  DETACH DELETE i
}
RETURN size(found) AS cleared
