// The items that no longer stand after re-verification, with why (flags) and the run that
// flagged them; current items only unless asked.
// @param include_replaced: bool = false: include items a later derivation already replaced
// @returns item, task, split, question, answer, current, run, flags
MATCH (i:Item)
WHERE NOT coalesce(i.standing, true) AND ($include_replaced OR i.current)
RETURN i.id AS item, i.task AS task, i.split AS split, i.question AS question,
       i.answer AS answer, i.current AS current,
       i.flagged_in AS run, i.flags AS flags
ORDER BY item
