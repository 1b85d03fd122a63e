// The ids of every vocabulary's current release (the newest completely loaded one): what a
// verification is judged against, kept on each assertion.
// @returns id
MATCH (r:Release)
WHERE r.current
RETURN r.id AS id
ORDER BY id
