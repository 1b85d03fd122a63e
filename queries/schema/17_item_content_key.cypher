// Finds the items of one clinical content (a reviewer's reject is keyed on the content key)
// without scanning every item.
// @returns nothing
CREATE INDEX item_content_key IF NOT EXISTS FOR (i:Item) ON (i.content_key)
