// One item node per derived QA item: derivation merges on its content-hash id.
// @returns nothing
CREATE CONSTRAINT item_id IF NOT EXISTS FOR (i:Item) REQUIRE i.id IS UNIQUE
