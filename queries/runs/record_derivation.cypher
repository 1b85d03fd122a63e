// Keeps on a run what the latest derivation from its patients gave: items per task and
// split, the policy and the settings hash (JSON), for `kgverify runs diff`.
// @param id: the run's id
// @param derived: the derivation's figures as JSON
// @returns id
MATCH (r:Run {id: $id})
SET r.derived = $derived, r.derived_at = datetime()
RETURN r.id AS id
