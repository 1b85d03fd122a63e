// Creates or updates patients: a pseudonym, an age band and sex, nothing that identifies;
// each linked to the run that brought it (IN_RUN; a patient ingested again by a later run
// belongs to both).
// @param rows: list of {id, age_band, sex, source}
// @param run: the ingest's run id (runs/begin_run), or null for none
// @returns written: rows written
UNWIND $rows AS row
MERGE (p:Patient {id: row.id})
SET p.age_band = row.age_band, p.sex = row.sex, p.source = row.source
WITH p
CALL (p) {
  MATCH (r:Run {id: $run})
  MERGE (p)-[:IN_RUN]->(r)
}
RETURN count(*) AS written
