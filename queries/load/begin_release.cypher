// Registers a release as being loaded (status "loading"); a rerun of the same release reuses
// the node. Returns the status it had before.
// @param release: release id, e.g. "SNOMEDCT@20250101"
// @param vocab: vocabulary (UMLS, SNOMEDCT, RXNORM)
// @param version: the release's own version string
// @param sort_key: comparable key ordering the vocabulary's releases
// @param mode: "batched" or "bulk"
// @param path: where the files were read from
// @param options: the load options as JSON
// @returns previous: the status before this call (null for a new release)
MERGE (r:Release {id: $release})
WITH r, r.status AS previous
SET r.vocab = $vocab, r.version = $version, r.sort_key = $sort_key, r.mode = $mode,
    r.path = $path, r.options = $options, r.status = "loading", r.started_at = datetime()
RETURN previous
