// One review node per reviewer decision: import merges on its hash id (item, decision,
// vetoed concept or judged assertion, reviewer), so a sheet imported twice writes it once.
// @returns nothing
CREATE CONSTRAINT review_id IF NOT EXISTS FOR (r:Review) REQUIRE r.id IS UNIQUE
