// Compares a batch of a release's concepts with the vocabulary's active concepts in the
// graph, before anything is written: how many the release would inactivate (active in the
// graph, active = false in the release) and rename (its name differs from the graph's; a
// row without a name, SNOMED CT's, whose names come from the descriptions, is not compared).
// @param rows: list of {id, active, name (or null)}
// @param vocab: vocabulary that owns the concepts
// @param examples: how many example concepts of each to return
// @returns inactivated, renamed, inactivated_examples, renamed_examples
UNWIND $rows AS row
MATCH (c:Concept {id: row.id})
WHERE c.owner = $vocab AND c.active
WITH row, c,
     NOT row.active AS inactivated,
     row.active AND row.name IS NOT NULL AND c.name IS NOT NULL AND c.name <> row.name AS renamed
RETURN count(CASE WHEN inactivated THEN 1 END) AS inactivated,
       count(CASE WHEN renamed THEN 1 END) AS renamed,
       collect(CASE WHEN inactivated THEN c.id + " " + coalesce(c.name, "") END)[..$examples]
         AS inactivated_examples,
       collect(CASE WHEN renamed THEN c.id + " " + c.name + " -> " + row.name END)[..$examples]
         AS renamed_examples
