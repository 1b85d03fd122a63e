// The WHO ATC codes of concepts, one MAPS_TO step away (a UMLS class concept contains its
// ATC code), for the duplicate-therapy check of kgverify check-actions: two drugs of one
// chemical subgroup (ATC level 4, e.g. ATC:C10AA, the statins) duplicate each other, two of
// one therapeutic area do not. Read-only.
// @param ids: concept ids (drug classes)
// @returns id, atc: list of ATC ids
UNWIND $ids AS cid
MATCH (k:Concept {id: cid})
RETURN k.id AS id,
       [(k)-[:MAPS_TO]-(a:Concept) WHERE a.id STARTS WITH "ATC:" | a.id] AS atc
