"""Checkpoint verification of an EHR agent's actions (docs/fhir.md): the FHIR resources an
agent created, each judged against the patient's record and the vocabularies (indicated,
contraindicated, duplicate therapy, unsupported, unknown code, malformed; ``judge.py``), and
tasks graded checkpoint by checkpoint (``run.py``), stored text-free for the audit queries
(``store.py``). The schemas are in ``model.py``."""
