// Marks a run complete with the ingest's report (JSON) and the number of patients it
// brought (its IN_RUN edges, counted here so the figure is the graph's).
// @param id: the run's id
// @param report: the ingest report as JSON
// @returns patients
MATCH (r:Run {id: $id})
SET r.status = "complete", r.finished_at = datetime(), r.ingest = $report,
    r.patients = COUNT { (:Patient)-[:IN_RUN]->(r) }
RETURN r.patients AS patients
