// How many assertions the graph holds, and how many of them a side's link status decided
// (judged = "links": no rule to re-run). One pass over the assertions; read-only.
// @returns assertions, judged_by_links
MATCH (a:Assertion)
RETURN count(a) AS assertions,
       sum(CASE WHEN a.judged = "links" THEN 1 ELSE 0 END) AS judged_by_links
