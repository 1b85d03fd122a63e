// One node per re-check of an assertion in a re-verification run (id = run + ":" + assertion).
// @returns nothing
CREATE CONSTRAINT recheck_id IF NOT EXISTS FOR (c:Recheck) REQUIRE c.id IS UNIQUE
