// Adds definitions to concepts (UMLS MRDEF, SNOMED CT text definitions); merged within a
// release, replaced by a newer one; `definition` is the first.
// @param rows: list of {id, definition, sab, line, count}
// @param release: id of the release being loaded
// @returns written: rows whose concept exists
UNWIND $rows AS row
MATCH (c:Concept {id: row.id})
SET c.definitions = CASE WHEN c.def_release = $release
      THEN coalesce(c.definitions, []) + [x IN [row.definition] WHERE NOT x IN coalesce(c.definitions, [])] ELSE [row.definition] END,
    c.definition = CASE WHEN c.def_release = $release
      THEN coalesce(c.definition, row.definition) ELSE row.definition END,
    c.def_release = $release
RETURN count(*) AS written
