// One node per checked dialogue: check-dialogue merges on its dialogue_id.
// @returns nothing
CREATE CONSTRAINT dialogue_id IF NOT EXISTS FOR (d:Dialogue) REQUIRE d.id IS UNIQUE
