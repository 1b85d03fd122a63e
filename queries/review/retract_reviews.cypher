// A sheet row is the reviewer's whole word on an item: earlier reviews by the same reviewer
// on the same item that the row no longer makes (a reject now accepted, a veto taken back)
// are marked retracted, with the time. Nothing is deleted; retracted reviews decide nothing
// (review/state reads only standing ones). Returns the retracted ids and the assertions
// their relation decisions were on, whose review mark settle_assertions then recomputes.
// @param rows: list of {item, reviewer, keep (review ids the row makes)}
// @returns id, assertion
UNWIND $rows AS row
MATCH (:Item {id: row.item})<-[:ON_ITEM]-(old:Review)
WHERE old.reviewer = row.reviewer AND NOT old.id IN row.keep AND NOT coalesce(old.retracted, false)
SET old.retracted = true, old.retracted_at = datetime()
RETURN old.id AS id, old.assertion AS assertion
