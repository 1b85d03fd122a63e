// The current releases as the linker index's cache key reads them: id, version and what the
// release holds (content: the SHA-256 of its files and row-choosing options recorded by the
// load), never when it was loaded, so loading the same files again (a fresh `kgverify sample`)
// finds the index already built. A release loaded before content hashes were recorded gives
// its load time instead, as the key used to.
// @returns id, version, content
MATCH (r:Release)
WHERE r.current
RETURN r.id AS id, r.version AS version,
       coalesce(r.content_hash, "loaded at " + toString(r.finished_at)) AS content
ORDER BY id
