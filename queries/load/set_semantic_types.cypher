// Sets UMLS semantic types (TUIs, names) and the coarse kinds derived from them; merged
// within a release, replaced by a newer one. Lists are kept sorted, so the result does not
// depend on the order MRSTY lines arrive in.
// @param rows: list of {id, tuis, stys, kinds, line, count}
// @param release: id of the release being loaded
// @returns written: rows whose concept exists
UNWIND $rows AS row
MATCH (c:Concept {id: row.id}) WHERE c.release = $release
SET c.tuis = COLLECT { UNWIND coalesce(CASE WHEN c.sty_release = $release THEN c.tuis END, []) + row.tuis AS x WITH DISTINCT x RETURN x ORDER BY x },
    c.semantic_types = COLLECT { UNWIND coalesce(CASE WHEN c.sty_release = $release THEN c.semantic_types END, []) + row.stys AS x WITH DISTINCT x RETURN x ORDER BY x },
    c.kinds = COLLECT { UNWIND coalesce(CASE WHEN c.sty_release = $release THEN c.kinds END, []) + row.kinds AS x WITH DISTINCT x RETURN x ORDER BY x },
    c.sty_release = $release
RETURN count(*) AS written
