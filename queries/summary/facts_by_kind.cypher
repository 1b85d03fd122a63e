// Patient facts per kind and code system, with how many link to a loaded concept.
// @returns kind, code_system, facts, known
MATCH (f:Fact)
RETURN f.kind AS kind, f.code_system AS code_system, count(*) AS facts,
       count(CASE WHEN f.known THEN 1 END) AS known
ORDER BY kind, code_system
