// Finds the concepts a re-verification run marked changed (touched_by = run token) without
// scanning every concept.
// @returns nothing
CREATE INDEX concept_touched IF NOT EXISTS FOR (c:Concept) ON (c.touched_by)
