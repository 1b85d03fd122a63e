// Deletes every node and relationship of the database, in batches (auto-commit). Schema
// (constraints, indexes) stays. Used by `kgverify graph reset` and the test suite.
// @returns nothing
MATCH (n)
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 10000 ROWS
