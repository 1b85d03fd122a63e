// One lock node per vocabulary: load/begin_release writes it first, so two loads of one
// vocabulary register their releases one after the other, never both at once.
// @returns nothing
CREATE CONSTRAINT load_lock_vocab IF NOT EXISTS FOR (l:LoadLock) REQUIRE l.vocab IS UNIQUE
