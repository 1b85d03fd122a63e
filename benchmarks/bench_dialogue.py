"""The dialogue checker on a set of judged dialogues (the planted set by default): precision
and recall per verdict, as a guard, the share of judged mentions with their verdict, and
turns per second. Needs the sample pipeline's graph and fact sheets (``make sample``, or any
graph where ``kgverify sample`` ran with the same settings); nothing is written to the graph.

    python -m benchmarks.bench_dialogue [--set PATH] [--repeat 20] [--json OUT.json]

(Run it as a module from the repository root: pysbd installs a top-level ``benchmarks``.)

- A set is JSONL in the planted format (``tests/fixtures/dialogue/planted.jsonl``): one
  dialogue per line with ``person`` (the sample EHR's person id), ``encounter_id``, ``turns``
  and ``expected`` (``turn``, ``text``, ``verdict`` per judged mention; other fields are
  kept for the guard, below, and otherwise ignored). Patients are resolved to this
  installation's pseudonyms and dates.
- A found mention agrees when its words overlap those judged in the same turn and the
  verdicts are equal (``kgverify.dialogue.sample.align``'s rule, kept here with the found
  mention so that the guard can read its flags; the pairs are checked against ``align``).
- **Guard**: what ``TurnVerdict.problems`` sends back (leak, contradicted, and unsupported
  when ``claimed``) against what the judge marked a problem: leak, contradicted, and an
  unsupported mention the patient affirms of themself (``claimed``, else ``problem``, when
  the set says; otherwise unless it is marked ``negated``, ``hypothetical`` or of a
  relative, ``experiencer: family``; or by the pattern tags of ``<set>.meta.jsonl``,
  ``negation``, ``hypothetical``, ``family``). A found problem with no judged partner is a
  false alarm; a judged one not found is missed.
- Throughput: the set's dialogues ``--repeat`` times over (new ids), one ``check_dialogues``
  run, after a first run that opened the linker index and filled the reach cache;
  ``turns/s`` counts patient turns.

The bench imports only what the package had before issue 37 (``check_dialogues``,
``read_verdicts``, ``sample.read_sample``/``resolve``/``align``), so an older tree is
measured by putting it first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kgverify.api import check_dialogues
from kgverify.config import Settings
from kgverify.dialogue import (
    Dialogue,
    DialogueVerdicts,
    MentionVerdict,
    read_verdicts,
    write_dialogues,
)
from kgverify.dialogue.sample import SampleDialogue, align, resolve
from kgverify.graph import Graph

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "tests" / "fixtures" / "dialogue" / "planted.jsonl"
VERDICTS = ("grounded", "leak", "contradicted", "unsupported", "unlinked")
KNOWN = {"turn", "text", "verdict"}

Judged = tuple[SampleDialogue, list[dict[str, Any]]]  # a dialogue, its judged mentions in full
Pair = tuple[str, dict[str, Any] | None, MentionVerdict | None]


def read_set(path: Path) -> list[Judged]:
    """The set's dialogues (fields the planted format lacks left out) with every field of
    each judged mention, and the ``tags`` of a ``<set>.meta.jsonl`` beside it (one line per
    judged mention: ``dialogue_id``, ``turn``, ``text``, ``tags``)."""
    meta_path = path.with_name(path.name.removesuffix(".jsonl") + ".meta.jsonl")
    tags: dict[tuple[str, int, str], list[str]] = {}
    if meta_path.is_file():
        for line in meta_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                m = json.loads(line)
                tags[(m["dialogue_id"], m["turn"], m["text"])] = list(m.get("tags", []))
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        judged = [
            {
                **e,
                **(
                    {"tags": t}
                    if (t := tags.get((raw["dialogue_id"], e["turn"], e["text"])))
                    else {}
                ),
            }
            for e in raw.get("expected", [])
        ]
        fields = {k: raw[k] for k in ("dialogue_id", "person", "encounter_id", "turns", "note")
                  if k in raw}  # fmt: skip
        fields["expected"] = [{k: e[k] for k in KNOWN} for e in judged]
        out.append((SampleDialogue(**fields), judged))
    return out


def pairs(judged: list[Judged], verdicts: Iterable[DialogueVerdicts]) -> list[Pair]:
    """Judged and found mentions paired as ``align`` pairs them, with the found mention."""
    found: dict[tuple[str, int], list[MentionVerdict]] = {}
    for v in verdicts:
        for turn in v.turns:
            for m in turn.mentions:
                found.setdefault((v.dialogue_id, m.turn), []).append(m)
    out: list[Pair] = []
    used: set[tuple[str, int, int]] = set()
    for d, marks in judged:
        for e in marks:
            at = d.turns[e["turn"]].text.lower().find(e["text"].lower())
            end = at + len(e["text"])
            where = f"{d.dialogue_id}#{e['turn']} {e['text']!r}"
            hit = next(
                (
                    m
                    for m in found.get((d.dialogue_id, e["turn"]), [])
                    if m.start < end
                    and at < m.end
                    and (d.dialogue_id, e["turn"], m.start) not in used
                ),
                None,
            )
            if hit is not None:
                used.add((d.dialogue_id, e["turn"], hit.start))
            out.append((where, e, hit))
    for (dialogue, at), mentions in found.items():
        for m in mentions:
            if (dialogue, at, m.start) not in used:
                out.append((f"{dialogue}#{at} {m.text!r}", None, m))
    return out


def judged_problem(e: dict[str, Any]) -> bool:
    if "problem" in e:
        return bool(e["problem"])
    if e["verdict"] in ("leak", "contradicted"):
        return True
    if e["verdict"] != "unsupported":
        return False
    if "claimed" in e:
        return bool(e["claimed"])
    if "tags" in e:  # the set's pattern tags: a denial, a supposition, a relative's
        return not {"negation", "hypothetical", "family"} & set(e["tags"])
    relative = e.get("experiencer", "patient") != "patient"
    return not (e.get("negated") or e.get("hypothetical") or relative)


def found_problem(m: MentionVerdict) -> bool:
    verdict = m.verdict.value
    return verdict in ("leak", "contradicted") or (verdict == "unsupported" and m.claimed)


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def measure(scored: list[Pair]) -> dict[str, Any]:
    per_verdict = []
    for kind in VERDICTS:
        expected = sum(1 for _, e, _ in scored if e is not None and e["verdict"] == kind)
        predicted = sum(1 for _, _, m in scored if m is not None and m.verdict.value == kind)
        agreed = sum(
            1
            for _, e, m in scored
            if e is not None and m is not None and e["verdict"] == m.verdict.value == kind
        )
        per_verdict.append(
            {
                "verdict": kind,
                "expected": expected,
                "predicted": predicted,
                "agreed": agreed,
                "precision": _ratio(agreed, predicted),
                "recall": _ratio(agreed, expected),
            }
        )
    caught = sum(1 for _, e, m in scored if e and m and judged_problem(e) and found_problem(m))
    problems = sum(1 for _, e, _ in scored if e and judged_problem(e))
    raised = sum(1 for _, _, m in scored if m and found_problem(m))
    judged = [(e, m) for _, e, m in scored if e is not None]
    right = sum(1 for e, m in judged if m is not None and m.verdict.value == e["verdict"])
    found = sum(1 for _, m in judged if m is not None)
    return {
        "per_verdict": per_verdict,
        "guard": {
            "problems": problems,
            "raised": raised,
            "caught": caught,
            "precision": _ratio(caught, raised),
            "recall": _ratio(caught, problems),
        },
        "judged_mentions": len(judged),
        "found": found,
        "expected_verdict": right,
        "expected_verdict_share": _ratio(right, len(judged)),
        "unjudged_found": sum(1 for _, e, m in scored if e is None and m is not None),
        "by_tag": by_tag(judged),
    }


def by_tag(judged: list[tuple[dict[str, Any], MentionVerdict | None]]) -> dict[str, dict[str, int]]:
    """Per pattern tag of the set (when it has them): judged, found, with the verdict."""
    out: dict[str, dict[str, int]] = {}
    for e, m in judged:
        for tag in e.get("tags", []):
            row = out.setdefault(tag, {"judged": 0, "found": 0, "agreed": 0})
            row["judged"] += 1
            row["found"] += m is not None
            row["agreed"] += m is not None and m.verdict.value == e["verdict"]
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["judged"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--set", type=Path, default=PLANTED, help="default: the planted set")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--facts", type=Path, help="default: <cache_dir>/sample/facts")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--misses", action="store_true", help="list every disagreement")
    args = parser.parse_args()
    settings = Settings()
    facts = args.facts or settings.cache_dir / "sample" / "facts"
    judged = read_set(args.set)
    sample = [d for d, _ in judged]
    dialogues = list(resolve(sample, settings))
    with tempfile.TemporaryDirectory() as tmp, Graph.connect(settings) as graph:
        folder = Path(tmp)
        write_dialogues(dialogues, folder / "set.jsonl")
        first = check_dialogues(
            folder / "set.jsonl",
            folder / "v.jsonl",
            facts=facts,
            settings=settings,
            graph=graph,
            write=False,  # the checker's throughput; the set's ids stay out of the user's graph
        )
        verdicts = list(read_verdicts(folder / "v.jsonl"))
        many = [
            Dialogue(**{**d.model_dump(), "dialogue_id": f"{d.dialogue_id}-{n}"})
            for n in range(args.repeat)
            for d in dialogues
        ]
        write_dialogues(many, folder / "many.jsonl")
        started = time.perf_counter()
        repeated = check_dialogues(
            folder / "many.jsonl",
            folder / "m.jsonl",
            facts=facts,
            settings=settings,
            graph=graph,
            write=False,
        )
        wall = time.perf_counter() - started
    scored = pairs(judged, verdicts)
    plain = [(w, e["verdict"] if e else None, m.verdict.value if m else None) for w, e, m in scored]
    assert sorted(plain, key=str) == sorted(align(sample, verdicts), key=str), "pairs drifted"
    result = {
        "set": str(args.set),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "dialogues": first.dialogues,
        "patient_turns": first.turns,
        "mentions": first.mentions,
        **measure(scored),
        "first_run_turns_per_second": first.turns_per_second,
        "repeated": {
            "dialogues": repeated.dialogues,
            "turns": repeated.turns,
            "seconds_with_open": round(wall, 2),
            "turns_per_second": repeated.turns_per_second,
        },
    }
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{args.set.name}: {first.dialogues} dialogues, {first.turns} patient turns\n")
    print("| verdict | judged | found | agreed | precision | recall |")
    print("|---|---:|---:|---:|---:|---:|")
    for s in result["per_verdict"]:
        print(
            f"| {s['verdict']} | {s['expected']} | {s['predicted']} | {s['agreed']} | "
            f"{s['precision']} | {s['recall']} |"
        )
    g = result["guard"]
    print(
        f"\nguard: {g['caught']} of {g['problems']} problems caught, {g['raised']} raised: "
        f"recall {g['recall']}, precision {g['precision']}"
    )
    print(
        f"judged mentions with the expected verdict: {result['expected_verdict']} of "
        f"{result['judged_mentions']} ({result['expected_verdict_share']}); found "
        f"{result['found']}; found but not judged {result['unjudged_found']}"
    )
    print(
        f"throughput: {repeated.turns} patient turns, {repeated.turns_per_second} turns/s "
        f"(first run, cold: {first.turns_per_second} turns/s)"
    )
    if result["by_tag"]:
        print("\n| pattern | judged | found | expected verdict |")
        print("|---|---:|---:|---:|")
        for tag, row in result["by_tag"].items():
            print(f"| {tag} | {row['judged']} | {row['found']} | {row['agreed']} |")
    if args.misses:
        for where, e, m in scored:
            if (e and e["verdict"]) != (m and m.verdict.value):
                said = f"{m.verdict.value}: {m.reason}" if m else "not found"
                print(f"  {where}: judged {e and e['verdict']}, {said}")
        # The guard's two error lists, apart: what it raised that the judge did not call a
        # problem, and the judged problems it let through.
        print("\nguard, raised but not a judged problem:")
        for where, e, m in scored:
            if m and found_problem(m) and not (e and judged_problem(e)):
                print(f"  {where}: judged {e and e['verdict']}, {m.verdict.value}: {m.reason}")
        print("guard, judged problems not raised:")
        for where, e, m in scored:
            if e and judged_problem(e) and not (m and found_problem(m)):
                said = f"{m.verdict.value}: {m.reason}" if m else "not found"
                print(f"  {where}: judged {e['verdict']}, {said}")


if __name__ == "__main__":
    main()
