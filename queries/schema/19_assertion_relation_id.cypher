// Finds the assertions of one caller's relation_id (an audit by the id in verdicts JSONL)
// without scanning every assertion; the key itself is Assertion.id (assertion_id unique).
// @returns nothing
CREATE INDEX assertion_relation_id IF NOT EXISTS FOR (a:Assertion) ON (a.relation_id)
