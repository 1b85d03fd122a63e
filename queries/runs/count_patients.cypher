// How many patients the graph holds (every run's, and those ingested without one).
// @returns patients
MATCH (p:Patient)
RETURN count(p) AS patients
