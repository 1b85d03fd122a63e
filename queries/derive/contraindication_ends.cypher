// Every condition some drug or drug class is contraindicated for: the ends of the active
// CONTRAINDICATED_FOR edges whose end is active, as the drug profiles read them
// (drug_profiles.cypher reads one drug's; this reads all, once per run). Derivation asks
// whether any of them is a patient's condition or a non-hub ancestor of one: where none
// is, no drug is wrong for that patient (kgverify/derive/justify.py,
// Justifier.may_rule_out). Read-only.
// @returns id
MATCH ()-[r:CONTRAINDICATED_FOR]->(t:Concept)
WHERE coalesce(r.active, true) AND coalesce(t.active, true)
RETURN DISTINCT t.id AS id
