// Makes Patient.id (a salted pseudonym) unique.
// @returns nothing
CREATE CONSTRAINT patient_id IF NOT EXISTS FOR (p:Patient) REQUIRE p.id IS UNIQUE
