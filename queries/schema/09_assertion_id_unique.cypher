// One assertion node per candidate relation: verification results are merged on its id.
// @returns nothing
CREATE CONSTRAINT assertion_id IF NOT EXISTS FOR (a:Assertion) REQUIRE a.id IS UNIQUE
