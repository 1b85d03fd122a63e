// Adds SNOMED CT descriptions to their concepts: every term (an FSN without its tag) joins
// `names`; the fully specified name sets `fsn`, the semantic tag and kind; a preferred
// synonym (language refset) sets `name`, and without one the FSN minus its tag does. Names were reset by
// load/upsert_concepts when the release changed, so a rerun adds nothing twice.
// @param rows: list of {id, term, plain, fsn, preferred, tags, kinds, line, count}
// @returns written: rows whose concept exists
UNWIND $rows AS row
MATCH (c:Concept {id: row.id})
SET c.names = coalesce(c.names, []) + [x IN [row.plain] WHERE NOT x IN coalesce(c.names, [])],
    c.semantic_types = coalesce(c.semantic_types, []) + [x IN row.tags WHERE NOT x IN coalesce(c.semantic_types, [])],
    c.kinds = coalesce(c.kinds, []) + [x IN row.kinds WHERE NOT x IN coalesce(c.kinds, [])],
    c.fsn = CASE WHEN row.fsn THEN row.term ELSE c.fsn END,
    c.name = CASE
      WHEN row.preferred THEN row.term
      WHEN row.fsn AND (c.name IS NULL OR NOT coalesce(c.name_preferred, false)) THEN row.plain
      ELSE c.name END,
    c.name_preferred = row.preferred OR coalesce(c.name_preferred, false)
RETURN count(*) AS written
