// One node per `kgverify reverify` run, merged on its token.
// @returns nothing
CREATE CONSTRAINT reverification_id IF NOT EXISTS FOR (r:Reverification) REQUIRE r.id IS UNIQUE
