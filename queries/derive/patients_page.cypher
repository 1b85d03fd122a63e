// One page of patient ids in id order (keyset pagination: pass the last id of the previous
// page as $after, "" for the first page): the patients a run brought (IN_RUN), or every
// patient when $run is null.
// @param after: the last patient id of the previous page ("" to start)
// @param limit: page size
// @param run: a run id (runs/get_run), or null for every patient in the graph
// @returns id
MATCH (p:Patient)
WHERE p.id > $after AND ($run IS NULL OR EXISTS { (p)-[:IN_RUN]->(:Run {id: $run}) })
RETURN p.id AS id
ORDER BY id
LIMIT $limit
