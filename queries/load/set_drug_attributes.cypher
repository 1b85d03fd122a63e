// Sets drug attributes from RxNorm RXNSAT: NDC codes, strength, available strength and the
// human-drug flag; merged within a release, replaced by a newer one. 
// @param rows: list of {id, ndcs, strength, available_strength, human_drug, line, count}
// @param release: id of the release being loaded
// @returns written: rows whose concept exists
UNWIND $rows AS row
MATCH (c:Concept {id: row.id}) WHERE c.release = $release
SET c.ndcs = CASE WHEN c.sat_release = $release THEN coalesce(c.ndcs, []) + [x IN row.ndcs WHERE NOT x IN coalesce(c.ndcs, [])] ELSE row.ndcs END,
    c.strength = coalesce(row.strength, CASE WHEN c.sat_release = $release THEN c.strength END),
    c.available_strength = coalesce(row.available_strength,
      CASE WHEN c.sat_release = $release THEN c.available_strength END),
    c.human_drug = coalesce(row.human_drug, CASE WHEN c.sat_release = $release THEN c.human_drug END),
    c.sat_release = $release
RETURN count(*) AS written
