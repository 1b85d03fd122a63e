// One node per graded task checkpoint: grade merges on "<task>/<checkpoint>".
// @returns nothing
CREATE CONSTRAINT task_checkpoint_id IF NOT EXISTS FOR (t:TaskCheckpoint) REQUIRE t.id IS UNIQUE
