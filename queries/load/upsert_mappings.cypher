// Links concepts to the source codes their atoms carry (UMLS CUI -> SNOMED CT code, RXCUI,
// ICD-10-CM, LOINC ...; RXCUI -> SNOMED CT code), one MAPS_TO edge per asserting source.
// A code not loaded by its own vocabulary is created as a stub with the atom's name.
// @param rows: list of {id, maps: [{id, vocab, code, name, sab, tty}]}
// @param vocab: vocabulary doing the load, kept as the edge's source
// @param release: id of the release being loaded
// @returns nothing
UNWIND $rows AS row
MATCH (c:Concept {id: row.id})
UNWIND row.maps AS m
MERGE (code:Concept {id: m.id})
  ON CREATE SET code.vocab = m.vocab, code.code = m.code, code.name = m.name, code.names = [],
                code.stub = true, code.active = true, code.first_release = $release
SET code.names = CASE WHEN code.stub AND NOT m.name IN code.names
      THEN code.names + [m.name] ELSE code.names END
MERGE (c)-[r:MAPS_TO {sab: m.sab}]->(code)
  ON CREATE SET r.first_release = $release
SET r.changed_in = CASE WHEN r.active = false THEN $release ELSE r.changed_in END,
    r.ttys = CASE WHEN r.release = $release THEN coalesce(r.ttys, []) + [x IN [m.tty] WHERE NOT x IN coalesce(r.ttys, [])] ELSE [m.tty] END,
    r.source = $vocab,
    r.source_rel = "atom",
    r.group = 0,
    r.active = true,
    r.retired_in = null,
    r.release = $release
