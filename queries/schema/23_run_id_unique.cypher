// One node per run: an ingest of an EHR source (kgverify ingest, api.pipeline, kgverify run),
// the patients it brought and what was derived from them (docs/runs.md).
// @returns nothing
CREATE CONSTRAINT run_id IF NOT EXISTS FOR (r:Run) REQUIRE r.id IS UNIQUE
