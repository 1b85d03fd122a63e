// Preferred names of the concepts a review page shows that no drawn edge names (the concept
// sets a distractor justification compared, the patient facts' concepts). Ids the graph
// does not hold give no row.
// @param ids: concept ids
// @returns id, name
UNWIND $ids AS id
MATCH (c:Concept {id: id})
RETURN c.id AS id, c.name AS name
