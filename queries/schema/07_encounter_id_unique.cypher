// Makes Encounter.id (a salted pseudonym) unique.
// @returns nothing
CREATE CONSTRAINT encounter_id IF NOT EXISTS FOR (e:Encounter) REQUIRE e.id IS UNIQUE
