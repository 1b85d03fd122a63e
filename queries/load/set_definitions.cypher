// Adds definitions to concepts (UMLS MRDEF, SNOMED CT text definitions); merged within a
// release, replaced by a newer one; `definitions` sorted, `definition` the first of them (so
// the order MRDEF lines arrive in does not matter).
// @param rows: list of {id, definition, sab, line, count}
// @param release: id of the release being loaded
// @returns written: rows whose concept exists
UNWIND $rows AS row
MATCH (c:Concept {id: row.id}) WHERE c.release = $release
SET c.definitions = COLLECT { UNWIND coalesce(CASE WHEN c.def_release = $release THEN c.definitions END, []) + [row.definition] AS x
      WITH DISTINCT x RETURN x ORDER BY x },
    c.definition = CASE WHEN c.def_release = $release AND c.definition <= row.definition
      THEN c.definition ELSE row.definition END,
    c.def_release = $release
RETURN count(*) AS written
