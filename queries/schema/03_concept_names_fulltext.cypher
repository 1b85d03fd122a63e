// Full-text index over each concept's preferred name and all its names (Lucene, used by
// audits and by the linker's exact/near-exact lookups).
// @returns nothing
CREATE FULLTEXT INDEX concept_names IF NOT EXISTS FOR (c:Concept) ON EACH [c.name, c.names]
