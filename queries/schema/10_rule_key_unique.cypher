// One node per rule version ("<rule id>@<version hash>"), shared by the assertions it decided.
// @returns nothing
CREATE CONSTRAINT rule_key IF NOT EXISTS FOR (r:Rule) REQUIRE r.key IS UNIQUE
