// How often each rule version decided, as first verified (re-checks are in changed_evidence):
// assertions it decided, how many of those passed the policy, and the items resting on them.
// @returns rule, id, version, assertions, passed, items
MATCH (r:Rule)
RETURN r.key AS rule, r.id AS id, r.version AS version,
       count { (r)<-[:DECIDED_BY]-(:Assertion) } AS assertions,
       count { (r)<-[:DECIDED_BY]-(a:Assertion) WHERE a.passed } AS passed,
       count { (r)<-[:DECIDED_BY]-(:Item) } AS items
ORDER BY assertions DESC, rule
