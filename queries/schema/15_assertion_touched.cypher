// Pages the assertions a re-verification run found touched (touched_by = run token) without
// scanning every assertion.
// @returns nothing
CREATE INDEX assertion_touched IF NOT EXISTS FOR (a:Assertion) ON (a.touched_by)
