// Makes Fact.id (source and content hash of the source row) unique.
// @returns nothing
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE f.id IS UNIQUE
