// Index on Release.vocab: the releases of one vocabulary.
// @returns nothing
CREATE INDEX release_vocab IF NOT EXISTS FOR (r:Release) ON (r.vocab)
