// Whether the database holds any node (a bulk import replaces the database, so it refuses
// one that does).
// @returns holds
RETURN EXISTS { MATCH (n) } AS holds
