// One node per judged agent action: check-actions and grade merge on its action_id.
// @returns nothing
CREATE CONSTRAINT agent_action_id IF NOT EXISTS FOR (a:AgentAction) REQUIRE a.id IS UNIQUE
