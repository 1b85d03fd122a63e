// Adds SNOMED CT descriptions to their concepts: every term (an FSN without its tag) joins
// `names`; the fully specified name sets `fsn`, the semantic tag and kind; a preferred
// synonym (language refset) sets `name`, and without one the FSN minus its tag does. Names were reset by
// load/upsert_concepts when the release changed, so a rerun adds nothing twice.
// @param rows: list of {id, term, plain, fsn, preferred, tags, kinds, line, count}
// @param release: id of the release being loaded (descriptions of other concepts dangle)
// @returns written: rows whose concept exists
UNWIND $rows AS row
MATCH (c:Concept {id: row.id}) WHERE c.release = $release
// Lists are kept sorted, so the result does not depend on the order descriptions arrive in.
SET c.names = COLLECT { UNWIND coalesce(c.names, []) + [row.plain] AS x WITH DISTINCT x RETURN x ORDER BY x },
    c.semantic_types = COLLECT { UNWIND coalesce(c.semantic_types, []) + row.tags AS x WITH DISTINCT x RETURN x ORDER BY x },
    c.kinds = COLLECT { UNWIND coalesce(c.kinds, []) + row.kinds AS x WITH DISTINCT x RETURN x ORDER BY x },
    c.fsn = CASE WHEN row.fsn THEN row.term ELSE c.fsn END,
    c.name = CASE
      WHEN row.preferred THEN row.term
      WHEN row.fsn AND (c.name IS NULL OR NOT coalesce(c.name_preferred, false)) THEN row.plain
      ELSE c.name END,
    c.name_preferred = row.preferred OR coalesce(c.name_preferred, false)
RETURN count(*) AS written
