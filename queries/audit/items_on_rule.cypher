// What depends on this rule? The items whose assertions a rule decided, for one rule
// version or all of them (rule versions are hashes of the rule's Cypher and edge table, so a
// changed rule shows here as a new version).
// @param rule: str: id of an existing rule, e.g. ingredient.support or direct.contradict
// @param version: str = null: one version (null: every version)
// @returns item, task, question, answer, rule, current, standing
MATCH (r:Rule {id: $rule})
WHERE $version IS NULL OR r.version = $version
MATCH (i:Item)-[:DECIDED_BY]->(r)
RETURN i.id AS item, i.task AS task, i.question AS question, i.answer AS answer, r.key AS rule, i.current AS current,
       coalesce(i.standing, true) AS standing
ORDER BY item, rule
