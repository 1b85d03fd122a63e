"""The Python API: one function per thing a pipeline does, each usable alone, each
returning a typed model (``kgverify.api.models`` names them all).

from kgverify.api import graph_summary, load_vocabulary

report = load_vocabulary("snomed", "path/to/SnomedCT_InternationalRF2_..._T120000Z")
report.status            # "complete", or raises RejectThresholdError
report.files[0].rejected # rows rejected in the first file, each in the rejects JSONL
graph_summary().concepts  # rows: vocab, concepts, active, retired, stubs

One module per group of user actions (``vocabularies``, ``sources``, ``linking``,
``verification``, ``derivation``, ``dialogues``, ``auditing``, ``reviews``, ``graphs``,
``servers``, ``chain``, ``fhir``, ``actions``), over ``bookkeeping`` (the graph a call
opens or is given, the rejects and row accounting of a run, outputs renamed into place
when a run completes).
Every public name is re-exported here: ``from kgverify.api import X`` is the way in.
Adding a function: put it in its group's module (``bookkeeping`` for what runs share),
name it below and in ``__all__``, and its result's model in ``models``.
"""

from typing import TYPE_CHECKING, Any

from kgverify.api.actions import check_actions, grade_tasks, sample_actions
from kgverify.api.auditing import (
    ProvReport,
    audit,
    audit_query,
    audits,
    export_prov,
    lineage,
    lineage_of_rows,
    reverify,
    write_evidence_graphml,
    write_prov,
)
from kgverify.api.bookkeeping import read_trajectories, sample_path
from kgverify.api.chain import (
    SAMPLE_EHR,
    SAMPLE_RELEASES,
    pipeline,
    pipeline_from_config,
    run_sample,
    sample_pipeline,
    server_facts,
    write_run_file,
)
from kgverify.api.derivation import calibrate_items, derive_facts, derive_qa, filter_sweep
from kgverify.api.dialogues import (
    check_dialogues,
    check_turn,
    fact_sheet,
    forget_dialogues,
    open_dialogue_checker,
    patient_chat,
    sample_dialogues,
    simulated_patient,
)
from kgverify.api.fhir import load_fhir, sample_fhir_grades
from kgverify.api.graphs import (
    GraphReset,
    cypher,
    cypher_param,
    diff_runs,
    graph_summary,
    named_queries,
    named_query,
    reset_graph,
    runs,
)
from kgverify.api.linking import (
    build_linker_index,
    find_concepts,
    link_relations_file,
    lucene_words,
    open_linker,
)
from kgverify.api.reviews import review_export, review_import, review_rejects_line, review_state
from kgverify.api.servers import (
    fhir_server_status,
    server_status,
    start_fhir_server,
    start_server,
    stop_fhir_server,
    stop_server,
)
from kgverify.api.sources import (
    extract_relations,
    ingest_and_extract,
    ingest_source,
    reads_url,
    source_location,
    write_trajectories,
)
from kgverify.api.verification import check, explain, open_verifier, verify_relations_file
from kgverify.api.vocabularies import load_vocabulary

# For whoever prints what the API returns (the CLI): a CSV cell a spreadsheet would run as a
# formula, quoted; a full disk or a read-only folder as one line.
from kgverify.outputs import safe_cell, storage_failure

if TYPE_CHECKING:
    from kgverify.ehr.report import TRAJECTORY_COUNTS


def __getattr__(name: str) -> Any:
    # The trajectory counts' names are the EHR report's; importing it here would load the
    # EHR stage (seconds) with every import of the API.
    if name == "TRAJECTORY_COUNTS":
        from kgverify.ehr.report import TRAJECTORY_COUNTS

        return TRAJECTORY_COUNTS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SAMPLE_EHR",
    "SAMPLE_RELEASES",
    "TRAJECTORY_COUNTS",
    "GraphReset",
    "ProvReport",
    "audit",
    "audit_query",
    "audits",
    "build_linker_index",
    "calibrate_items",
    "check",
    "check_actions",
    "check_dialogues",
    "check_turn",
    "cypher",
    "cypher_param",
    "derive_facts",
    "derive_qa",
    "diff_runs",
    "explain",
    "export_prov",
    "extract_relations",
    "fact_sheet",
    "fhir_server_status",
    "filter_sweep",
    "find_concepts",
    "forget_dialogues",
    "grade_tasks",
    "graph_summary",
    "ingest_and_extract",
    "ingest_source",
    "lineage",
    "lineage_of_rows",
    "link_relations_file",
    "load_fhir",
    "load_vocabulary",
    "lucene_words",
    "named_queries",
    "named_query",
    "open_dialogue_checker",
    "open_linker",
    "open_verifier",
    "patient_chat",
    "pipeline",
    "pipeline_from_config",
    "read_trajectories",
    "reads_url",
    "reset_graph",
    "reverify",
    "review_export",
    "review_import",
    "review_rejects_line",
    "review_state",
    "run_sample",
    "runs",
    "safe_cell",
    "sample_actions",
    "sample_dialogues",
    "sample_fhir_grades",
    "sample_path",
    "sample_pipeline",
    "server_facts",
    "server_status",
    "simulated_patient",
    "source_location",
    "start_fhir_server",
    "start_server",
    "stop_fhir_server",
    "stop_server",
    "storage_failure",
    "verify_relations_file",
    "write_evidence_graphml",
    "write_prov",
    "write_run_file",
    "write_trajectories",
]
