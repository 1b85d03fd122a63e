// Records the versions of the source vocabularies inside a release (UMLS MRSAB) on its node.
// @param rows: list of {sab, version, name}
// @param release: id of the release being loaded
// @returns nothing
MATCH (r:Release {id: $release})
WITH r, [x IN $rows | x.sab + "=" + x.version] AS sources
SET r.sources = coalesce(r.sources, []) + [x IN sources WHERE NOT x IN coalesce(r.sources, [])]
