// Which (subject, object) pairs the rules would read differently after a change: a pair is
// touched when a concept the run marked changed (touched_by = $run, see
// reverify/mark_changed_*) is one of its own concepts or evidence nodes, lies on the
// subject's drug normalization (one MAPS_TO step, up to 3 TRADENAME_OF / CONSISTS_OF /
// HAS_INGREDIENT / HAS_PRECISE_INGREDIENT / FORM_OF steps, one MAPS_TO step), or on the
// object's is-a climb (one MAPS_TO step, up to $max_depth non-hub is-a steps, one MAPS_TO
// step): every edge a rule can use has an end there (queries/verify/*.cypher). Retired
// edges are walked too, since they were readable before. Read-only.
// @param rows: list of {rid, subject, object, nodes}: concept ids of the pair, nodes = its evidence concepts
// @param run: token of the re-verification run that marked the changed concepts
// @param hubs: map from the id of every hub concept to true (the climb stops there, as the rules do)
// @param max_depth: is-a steps the rules climb above an object
// @returns rid of each touched row
UNWIND $rows AS row
WITH row
WHERE EXISTS {
        MATCH (c:Concept)
        WHERE c.id IN [row.subject, row.object] + row.nodes AND c.touched_by = $run
      }
   OR EXISTS {
        MATCH p = (:Concept {id: row.subject})-[:MAPS_TO*0..1]-(:Concept)
                  -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]->
                  (:Concept)-[:MAPS_TO*0..1]-(:Concept)
        WHERE any(n IN nodes(p) WHERE n.touched_by = $run)
      }
   OR EXISTS {
        MATCH (:Concept {id: row.object})-[:MAPS_TO*0..1]-(o:Concept)
        MATCH pa = (o)-[:IS_A*0..4]->(x:Concept)
        WHERE length(pa) <= $max_depth AND all(n IN tail(nodes(pa)) WHERE $hubs[n.id] IS NULL)
        MATCH (x)-[:MAPS_TO*0..1]-(t:Concept)
        WHERE any(n IN nodes(pa) + [t] WHERE n.touched_by = $run)
      }
RETURN row.rid AS rid
