// The current releases whose changes no re-verification has checked yet while some
// assertion was judged before them (each assertion keeps the releases current when it was
// verified): what a plain `kgverify reverify` re-checks.
// @returns id
MATCH (r:Release)
WHERE r.current AND r.reverified_in IS NULL
  AND EXISTS { MATCH (a:Assertion) WHERE NOT r.id IN coalesce(a.releases, []) }
RETURN r.id AS id
ORDER BY id
