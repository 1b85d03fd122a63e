// Finds the items a derivation run wrote but has not published yet (derive/publish_items)
// and those a killed run left pending (derive/clear_pending) without scanning every item.
// @returns nothing
CREATE INDEX item_pending_run IF NOT EXISTS FOR (i:Item) ON (i.pending_run)
