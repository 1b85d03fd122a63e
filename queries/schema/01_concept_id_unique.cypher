// Makes Concept.id unique (and indexed): every concept is found by its namespaced id.
// @returns nothing
CREATE CONSTRAINT concept_id IF NOT EXISTS FOR (c:Concept) REQUIRE c.id IS UNIQUE
