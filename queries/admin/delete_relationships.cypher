// Deletes every relationship of the database, 10,000 per transaction (auto-commit), before
// `admin/delete_all` deletes the nodes: a node's DETACH DELETE holds all of its
// relationships in one transaction, and a concept coded by tens of thousands of facts in a
// batch of 10,000 nodes ran a 1 GiB server out of transaction memory. Used by
// `kgverify graph reset` and the test suite.
// @returns nothing
MATCH ()-[r]->()
CALL (r) {
  DELETE r
} IN TRANSACTIONS OF 10000 ROWS
