// Creates or updates typed relationships between loaded concepts, one edge per
// (start, type, end, asserting source, role group). The type is a dynamic relationship type
// whose value the loader has checked against kgverify.graph.model.RelType. Rows whose start
// or end concept is not in this release are not written (the pipeline then asks
// load/missing_concepts which ones dangle): an edge of a release whose concept file lacks
// its ends must not keep concepts of an older release alive. An edge whose active flag flips records the
// release in changed_in (a new edge has first_release): re-verification reads what a
// release changed from these two.
// @param rows: list of {start, end, type, source_rel, sab, group, active, effective_time, line}
// @param vocab: vocabulary doing the load, kept as the edge's source
// @param release: id of the release being loaded
// @returns written: rows whose two concepts exist (merged or created)
UNWIND $rows AS row
MATCH (a:Concept {id: row.start}) WHERE a.release = $release
MATCH (b:Concept {id: row.end}) WHERE b.release = $release
MERGE (a)-[r:$(row.type) {sab: row.sab, group: row.group}]->(b)
  ON CREATE SET r.first_release = $release
SET r.changed_in = CASE WHEN r.active IS NOT NULL AND r.active <> row.active
      THEN $release ELSE r.changed_in END,
    r.source_rel = row.source_rel,
    r.source = $vocab,
    r.active = row.active,
    r.effective_time = row.effective_time,
    r.retired_in = CASE WHEN row.active THEN null ELSE coalesce(r.retired_in, $release) END,
    r.release = $release
RETURN count(*) AS written
