// Creates or updates the concepts one vocabulary owns, one row per concept (a row may be a
// part of a concept when its source lines are not contiguous: names and kinds are merged
// within a release and replaced by a newer release). Sets the vocabulary label, clears the
// stub flag of a concept that an earlier load only knew as a mapping target, and records
// the release that last contained the concept; a concept whose active flag flips records
// the release in changed_in (re-verification reads what a release changed from it).
// The result does not depend on the order rows arrive in: lists are kept sorted, and the
// name is the one of lowest (name_rank, name) seen in the release (RRF rows; SNOMED CT rows
// carry no name here, their descriptions set it).
// @param rows: list of {id, code, name (or null), name_rank (or null), names, kinds, semantic_types, active, effective_time}
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
    c.name = CASE
      WHEN row.name IS NULL THEN CASE WHEN c.release = $release THEN c.name ELSE head(row.names) END
      WHEN c.release = $release AND c.name_rank IS NOT NULL AND (c.name_rank < row.name_rank
        OR (c.name_rank = row.name_rank AND c.name <= row.name)) THEN c.name
      ELSE row.name END,
    c.name_rank = CASE
      WHEN row.name IS NULL THEN CASE WHEN c.release = $release THEN c.name_rank END
      WHEN c.release = $release AND c.name_rank IS NOT NULL AND (c.name_rank < row.name_rank
        OR (c.name_rank = row.name_rank AND c.name <= row.name)) THEN c.name_rank
      ELSE row.name_rank END,
    c.name_preferred = CASE WHEN c.release = $release THEN c.name_preferred ELSE false END,
    c.names = CASE WHEN c.release = $release
      THEN COLLECT { UNWIND coalesce(c.names, []) + row.names AS x WITH DISTINCT x RETURN x ORDER BY x }
      ELSE row.names END,
    // "other" is the kind of a row that knew none; another part of the concept may know one.
    c.kinds = CASE WHEN c.release = $release
      THEN [k IN COLLECT { UNWIND coalesce(c.kinds, []) + row.kinds AS x WITH DISTINCT x RETURN x ORDER BY x }
            WHERE k <> "other" OR all(y IN coalesce(c.kinds, []) + row.kinds WHERE y = "other")]
      ELSE row.kinds END,
    c.semantic_types = CASE WHEN c.release = $release
      THEN COLLECT { UNWIND coalesce(c.semantic_types, []) + row.semantic_types AS x WITH DISTINCT x RETURN x ORDER BY x }
      ELSE row.semantic_types END,
    c.active = row.active,
    c.effective_time = row.effective_time,
    c.retired_in = CASE WHEN row.active THEN null ELSE coalesce(c.retired_in, $release) END,
    c.release = $release
