// The newest completely loaded release of a vocabulary.
// @param vocab: vocabulary (UMLS, SNOMEDCT, RXNORM)
// @returns id, version, sort_key (no row when none was loaded)
MATCH (r:Release {vocab: $vocab})
WHERE r.status = "complete"
RETURN r.id AS id, r.version AS version, r.sort_key AS sort_key
ORDER BY r.sort_key DESC
LIMIT 1
