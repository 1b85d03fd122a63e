// Makes Release.id unique, e.g. "SNOMEDCT@20250101".
// @returns nothing
CREATE CONSTRAINT release_id IF NOT EXISTS FOR (r:Release) REQUIRE r.id IS UNIQUE
