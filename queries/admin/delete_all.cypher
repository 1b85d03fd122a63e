// Deletes every node and relationship of the database, in batches (auto-commit), after
// `admin/delete_relationships` has deleted the relationships in batches of their own. Schema
// (constraints, indexes) stays. Used by `kgverify graph reset` and the test suite.
// @returns nothing
MATCH (n)
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 10000 ROWS
