// Creates or updates the concepts one vocabulary owns, one row per concept (a row may be a
// part of a concept when its source lines are not contiguous: names and kinds are merged
// within a release and replaced by a newer release). Sets the vocabulary label, clears the
// stub flag of a concept that an earlier load only knew as a mapping target, and records
// the release that last contained the concept; a concept whose active flag flips records
// the release in changed_in (re-verification reads what a release changed from it).
// @param rows: list of {id, code, name (or null), names, kinds, semantic_types, active, effective_time}
// @param vocab: owning vocabulary, a kgverify.graph.model.Vocab value (UMLS, SNOMEDCT, RXNORM)
// @param release: id of the release being loaded, e.g. "UMLS@2025AA"
// @returns nothing
UNWIND $rows AS row
MERGE (c:Concept {id: row.id})
  ON CREATE SET c.first_release = $release
// All right-hand sides see the values before this SET; a later row of the same batch for
// the same concept sees this row's values, so split concepts merge correctly.
SET c:$($vocab),
    c.changed_in = CASE WHEN c.active IS NOT NULL AND c.active <> row.active
      THEN $release ELSE c.changed_in END,
    c.vocab = $vocab,
    c.owner = $vocab,
    c.code = row.code,
    c.stub = false,
    c.name = coalesce(row.name, CASE WHEN c.release = $release THEN c.name END, head(row.names)),
    c.name_preferred = CASE WHEN c.release = $release THEN c.name_preferred ELSE false END,
    c.names = CASE WHEN c.release = $release
      THEN coalesce(c.names, []) + [x IN row.names WHERE NOT x IN coalesce(c.names, [])] ELSE row.names END,
    c.kinds = CASE WHEN c.release = $release
      THEN coalesce(c.kinds, []) + [x IN row.kinds WHERE NOT x IN coalesce(c.kinds, [])] ELSE row.kinds END,
    c.semantic_types = CASE WHEN c.release = $release
      THEN coalesce(c.semantic_types, []) + [x IN row.semantic_types WHERE NOT x IN coalesce(c.semantic_types, [])] ELSE row.semantic_types END,
    c.active = row.active,
    c.effective_time = row.effective_time,
    c.retired_in = CASE WHEN row.active THEN null ELSE coalesce(c.retired_in, $release) END,
    c.release = $release
