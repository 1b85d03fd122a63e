// Records that a run starts: its source kind, the source path it read, the hash of the
// settings that shape its outputs and when it began (status "running" until finish_run).
// @param id: the run's id (runs.new_run_id: UTC time and a random tail)
// @param source: EHR source kind (omop, mimic, fhir, ...)
// @param source_path: the folder or file the source was read from
// @param settings: hash of the shaping settings (derive.run.settings_digest)
// @returns id
CREATE (r:Run {id: $id})
SET r.source = $source, r.source_path = $source_path, r.settings = $settings,
    r.started_at = datetime(), r.status = "running"
RETURN r.id AS id
