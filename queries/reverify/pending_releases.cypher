// The current releases that some assertion has not been judged against yet: what a plain
// `kgverify reverify` re-checks (each assertion keeps the releases it was judged against).
// @returns id
MATCH (r:Release)
WHERE r.current
  AND EXISTS { MATCH (a:Assertion) WHERE NOT r.id IN coalesce(a.releases, []) }
RETURN r.id AS id
ORDER BY id
