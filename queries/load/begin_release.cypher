// Registers a release as being loaded (status "loading"); a rerun of the same release reuses
// the node. Loads of one vocabulary run one at a time: the vocabulary's LoadLock node is
// written first (an exclusive lock until this transaction commits), then any OTHER release
// of the vocabulary still "loading" (running now, or interrupted) blocks this one: nothing
// is registered and `busy` names it, unless `abandon` marks those "abandoned".
// @param release: release id, e.g. "SNOMEDCT@20250101"
// @param vocab: vocabulary (UMLS, SNOMEDCT, RXNORM)
// @param version: the release's own version string
// @param sort_key: comparable key ordering the vocabulary's releases
// @param mode: "batched" or "bulk"
// @param path: where the files were read from
// @param options: the load options as JSON
// @param content_hash: SHA-256 of the files the load reads (names and bytes; the linker index's key)
// @param abandon: mark other releases of the vocabulary still "loading" abandoned
// @returns registered (false when blocked), previous (the status before), busy (blocking releases with their start)
MERGE (lock:LoadLock {vocab: $vocab})
SET lock.vocab = $vocab  // a write, so the lock is held until commit; no value that varies
WITH lock
OPTIONAL MATCH (other:Release {vocab: $vocab, status: "loading"})
WHERE other.id <> $release
WITH collect(other) AS others
FOREACH (o IN CASE WHEN $abandon THEN others ELSE [] END | SET o.status = "abandoned")
WITH others, size(others) = 0 OR $abandon AS go
OPTIONAL CALL (go) {
  WITH go WHERE go
  MERGE (r:Release {id: $release})
  WITH r, r.status AS previous
  SET r.vocab = $vocab, r.version = $version, r.sort_key = $sort_key, r.mode = $mode,
      r.path = $path, r.options = $options, r.content_hash = $content_hash,
      r.status = "loading", r.started_at = datetime()
  RETURN previous
}
RETURN go AS registered, previous,
       [o IN others | o.id + " (loading since " + toString(o.started_at) + ")"] AS busy
