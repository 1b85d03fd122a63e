// Finds the items about one topic concept (a reviewer's veto holds for every item of that
// task and topic) without scanning every item.
// @returns nothing
CREATE INDEX item_topic IF NOT EXISTS FOR (i:Item) ON (i.topic)
