// Index on (owner, release): finds a vocabulary's concepts not seen in the newest release.
// @returns nothing
CREATE INDEX concept_owner_release IF NOT EXISTS FOR (c:Concept) ON (c.owner, c.release)
