// The vocabulary's current release (made current by its last complete load; a rerun that is
// still loading keeps it current), else its newest complete one.
// @param vocab: vocabulary (UMLS, SNOMEDCT, RXNORM)
// @returns id, version, sort_key, report (the LoadReport JSON); no row when none was loaded
MATCH (r:Release {vocab: $vocab})
WHERE r.status = "complete" OR r.current
RETURN r.id AS id, r.version AS version, r.sort_key AS sort_key, r.report AS report
ORDER BY coalesce(r.current, false) DESC, r.sort_key DESC
LIMIT 1
