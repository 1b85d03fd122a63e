// Links concepts to the source codes their atoms carry (UMLS CUI -> SNOMED CT code, RXCUI,
// ICD-10-CM, LOINC ...; RXCUI -> SNOMED CT code), one MAPS_TO edge per asserting source.
// A code not loaded by its own vocabulary is created as a stub named by its best atom: the
// lowest (name_rank, name) seen, so the name does not depend on the order rows arrive in;
// its names are every atom string seen for it, sorted.
// Term types on an edge are the sorted union of the release's atoms for that code.
// @param rows: list of {id, maps: [{id, vocab, code, name, name_rank, names, sab, ttys}]}
// @param vocab: vocabulary doing the load, kept as the edge's source
// @param release: id of the release being loaded
// @returns nothing
UNWIND $rows AS row
MATCH (c:Concept {id: row.id})
UNWIND row.maps AS m
MERGE (code:Concept {id: m.id})
  ON CREATE SET code.vocab = m.vocab, code.code = m.code, code.name = m.name, code.names = [],
                code.name_rank = m.name_rank, code.stub = true, code.active = true,
                code.first_release = $release
SET code.names = CASE WHEN code.stub
      THEN COLLECT { UNWIND code.names + m.names AS x WITH DISTINCT x RETURN x ORDER BY x } ELSE code.names END,
    code.name = CASE WHEN code.stub AND (code.name_rank IS NULL OR m.name_rank < code.name_rank
      OR (m.name_rank = code.name_rank AND m.name < code.name)) THEN m.name ELSE code.name END,
    code.name_rank = CASE WHEN code.stub AND (code.name_rank IS NULL OR m.name_rank < code.name_rank
      OR (m.name_rank = code.name_rank AND m.name < code.name)) THEN m.name_rank ELSE code.name_rank END
MERGE (c)-[r:MAPS_TO {sab: m.sab}]->(code)
  ON CREATE SET r.first_release = $release
SET r.changed_in = CASE WHEN r.active = false THEN $release ELSE r.changed_in END,
    r.ttys = CASE WHEN r.release = $release
      THEN COLLECT { UNWIND coalesce(r.ttys, []) + m.ttys AS x WITH DISTINCT x RETURN x ORDER BY x }
      ELSE m.ttys END,
    r.source = $vocab,
    r.source_rel = "atom",
    r.group = 0,
    r.active = true,
    r.retired_in = null,
    r.release = $release
