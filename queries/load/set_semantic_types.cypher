// Sets UMLS semantic types (TUIs, names) and the coarse kinds derived from them; merged
// within a release, replaced by a newer one. 
// @param rows: list of {id, tuis, stys, kinds, line, count}
// @param release: id of the release being loaded
// @returns written: rows whose concept exists
UNWIND $rows AS row
MATCH (c:Concept {id: row.id})
SET c.tuis = CASE WHEN c.sty_release = $release THEN coalesce(c.tuis, []) + [x IN row.tuis WHERE NOT x IN coalesce(c.tuis, [])] ELSE row.tuis END,
    c.semantic_types = CASE WHEN c.sty_release = $release
      THEN coalesce(c.semantic_types, []) + [x IN row.stys WHERE NOT x IN coalesce(c.semantic_types, [])] ELSE row.stys END,
    c.kinds = CASE WHEN c.sty_release = $release THEN coalesce(c.kinds, []) + [x IN row.kinds WHERE NOT x IN coalesce(c.kinds, [])] ELSE row.kinds END,
    c.sty_release = $release
RETURN count(*) AS written
