"""SNOMED CT RF2 snapshot: concepts, descriptions (FSN, synonyms, preferred terms from a
language refset), text definitions and inferred relationships with role groups."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from kgverify.errors import LoadError, ReleaseGuardError
from kgverify.graph.model import Vocab, concept_id
from kgverify.rows import Tally
from loaders.base import LoadOptions, Release, Row, Step, VocabularyLoader
from loaders.kinds import SNOMED_TAG_KIND, snomed_semantic_tag
from loaders.relations import SNOMED_TYPES
from loaders.rrf import Line, read_rf2
from loaders.staging import DiskIdSet

CONCEPT_COLUMNS = tuple("id effectiveTime active moduleId definitionStatusId".split())
DESCRIPTION_COLUMNS = tuple(
    (
        "id effectiveTime active moduleId conceptId languageCode typeId term caseSignificanceId"
    ).split()
)
RELATIONSHIP_COLUMNS = tuple(
    (
        "id effectiveTime active moduleId sourceId destinationId relationshipGroup typeId "
        "characteristicTypeId modifierId"
    ).split()
)
LANGUAGE_COLUMNS = tuple(
    ("id effectiveTime active moduleId refsetId referencedComponentId acceptabilityId").split()
)
FSN = "900000000000003001"
SYNONYM = "900000000000013009"
DEFINITION = "900000000000550004"
PREFERRED = "900000000000548007"
INFERRED = "900000000000011006"
ADDITIONAL = "900000000000227009"
SCTID = re.compile(r"[1-9]\d{5,17}")
_RELEASE_DATE = re.compile(r"_(\d{8})\.txt$")
# LAT codes (as in UMLS) -> RF2 language codes.
_LANGUAGES = {"ENG": "en", "SPA": "es", "FRE": "fr", "GER": "de", "DUT": "nl", "SWE": "sv"}


class SnomedLoader(VocabularyLoader):
    """Loads an RF2 release folder (its ``Snapshot/`` tree)."""

    name = "snomed"
    vocab = Vocab.SNOMEDCT
    source_format = "SNOMED CT RF2 snapshot"
    license = "SNOMED CT Affiliate License; the bundled sample is synthetic-plus-public"
    header_lines = 1

    def __init__(self, path: Path, options: LoadOptions | None = None) -> None:
        super().__init__(path, options)
        self._preferred: DiskIdSet | None = None

    def release(self) -> Release:
        if self.options.release:
            return Release(Vocab.SNOMEDCT, self.options.release, self.options.release)
        match = _RELEASE_DATE.search(self._file("Concept").name)
        if match is None:
            raise LoadError(f"cannot tell the SNOMED CT release of {self.path}: pass --release")
        return Release(Vocab.SNOMEDCT, match.group(1), match.group(1))

    def _file(self, kind: str) -> Path:
        return self.require(f"sct2_{kind}_Snapshot*.txt")

    def steps(self) -> list[Step]:
        concepts, descriptions, relationships = (
            self._file(kind) for kind in ("Concept", "Description", "Relationship")
        )
        # Names come from the descriptions and the language refset: both must hold rows.
        language = self.require("der2_cRefset_LanguageSnapshot*.txt")
        steps = [
            Step.concepts(concepts, lambda t: self._concepts(concepts, t), mappings=False),
            # Stages the preferred description ids; writes nothing itself.
            Step(
                "preferred terms",
                language,
                (),
                "update",
                lambda t: self._stage_language(language, t),
                required=True,
            ),
            Step.update(
                "descriptions",
                descriptions,
                "load/add_descriptions",
                lambda t: self._descriptions(descriptions, t),
                required=True,
            ),
        ]
        if (definitions := self.find("sct2_TextDefinition_Snapshot*.txt")) is not None:
            steps.append(
                Step.update(
                    "text definitions",
                    definitions,
                    "load/set_definitions",
                    lambda t: self._definitions(definitions, t),
                )
            )
        steps.append(
            Step.relationships(relationships, lambda t: self._relationships(relationships, t))
        )
        return steps

    def check_release(self) -> None:
        """Every active concept gets a name: an active FSN or synonym in a selected language
        (else it would be loaded nameless). Two streaming passes before anything is written,
        the named concept ids staged on disk; ReleaseGuardError naming the descriptions file
        and a few of the nameless concepts."""
        concepts, descriptions = self._file("Concept"), self._file("Description")
        languages = self._languages()
        columns = {c: i for i, c in enumerate(DESCRIPTION_COLUMNS)}
        with DiskIdSet() as named:
            batch: list[str] = []
            for f in _rf2_fields(descriptions, len(DESCRIPTION_COLUMNS)):
                if (
                    f[columns["active"]] == "1"
                    and f[columns["languageCode"]] in languages
                    and f[columns["typeId"]] in (FSN, SYNONYM)
                ):
                    batch.append(f[columns["conceptId"]])
                    if len(batch) >= 10_000:
                        named.add_many(batch)
                        batch.clear()
            named.add_many(batch)
            active = (  # a malformed id is the load's reject, not a nameless concept
                f[0]
                for f in _rf2_fields(concepts, len(CONCEPT_COLUMNS))
                if f[2] == "1" and SCTID.fullmatch(f[0])
            )
            total, nameless, examples = 0, 0, list[str]()
            while chunk := list(islice(active, 5_000)):
                total += len(chunk)
                found = named.contains_many(chunk)
                missing = [sctid for sctid in chunk if sctid not in found]
                nameless += len(missing)
                examples.extend(missing[: 5 - len(examples)])
        if nameless:
            raise ReleaseGuardError(
                f"{nameless:,} of {total:,} active concepts would have no name: "
                f"{descriptions.name} gives them no active FSN or synonym in "
                f"{', '.join(sorted(languages))} (e.g. {', '.join(examples)}); a damaged copy, "
                "or a language the release lacks; nothing was written"
            )

    def _languages(self) -> set[str]:
        """The RF2 language codes of the selected languages."""
        return {_LANGUAGES.get(lat, lat.lower()) for lat in self.options.languages}

    def close(self) -> None:
        if self._preferred is not None:
            self._preferred.close()
            self._preferred = None

    # -- rows ------------------------------------------------------------------------------
    @staticmethod
    def _valid(lines: Iterator[Line], tally: Tally, *keys: str) -> Iterator[Line]:
        for line in lines:
            f = line.fields
            bad = next((k for k in keys if not SCTID.fullmatch(f[k])), None)
            if bad is not None:
                tally.reject(
                    line.number, f"malformed SCTID in {bad}: {f[bad]!r}", "\t".join(f.values())
                )
            elif f["active"] not in ("0", "1"):
                tally.reject(
                    line.number, f"active must be 0 or 1: {f['active']!r}", "\t".join(f.values())
                )
            else:
                yield line

    def _concepts(self, path: Path, tally: Tally) -> Iterator[Row]:
        for line in self._valid(read_rf2(path, CONCEPT_COLUMNS, tally), tally, "id"):
            f = line.fields
            tally.loaded += 1
            yield {
                "id": concept_id("SNOMEDCT", f["id"]),
                "code": f["id"],
                "name": None,
                "names": [],
                "kinds": [],
                "semantic_types": [],
                "active": f["active"] == "1",
                "effective_time": f["effectiveTime"],
            }

    def _stage_language(self, path: Path, tally: Tally) -> Iterator[Row]:
        self._preferred = DiskIdSet()
        refset = self.options.snomed_language_refset
        batch: list[str] = []
        for line in read_rf2(path, LANGUAGE_COLUMNS, tally):
            f = line.fields
            if f["refsetId"] != refset:
                tally.skip("other language refset")
            elif f["active"] != "1":
                tally.skip("inactive refset member")
            elif f["acceptabilityId"] != PREFERRED:
                tally.skip("acceptable, not preferred")
            else:
                tally.loaded += 1
                batch.append(f["referencedComponentId"])
                if len(batch) >= 10_000:
                    self._preferred.add_many(batch)
                    batch.clear()
        self._preferred.add_many(batch)
        return iter(())

    def _descriptions(self, path: Path, tally: Tally) -> Iterator[Row]:
        languages = self._languages()
        lines = self._valid(read_rf2(path, DESCRIPTION_COLUMNS, tally), tally, "id", "conceptId")
        while chunk := list(islice(lines, 5_000)):
            preferred = (
                self._preferred.contains_many([c.fields["id"] for c in chunk])
                if self._preferred is not None
                else set()
            )
            for line in chunk:
                f = line.fields
                if f["active"] != "1":
                    tally.skip("inactive description")
                elif f["languageCode"] not in languages:
                    tally.skip(f"language {f['languageCode']} not selected")
                elif f["typeId"] not in (FSN, SYNONYM):
                    tally.skip("description type not loaded")
                else:
                    tally.loaded += 1
                    yield self._description_row(line, f["id"] in preferred)

    @staticmethod
    def _description_row(line: Line, preferred: bool) -> Row:
        f = line.fields
        is_fsn = f["typeId"] == FSN
        tag = snomed_semantic_tag(f["term"]) if is_fsn else None
        kind = SNOMED_TAG_KIND.get(tag) if tag else None
        plain = f["term"][: f["term"].rindex("(")].strip() if tag else f["term"]
        return {
            "id": concept_id("SNOMEDCT", f["conceptId"]),
            "term": f["term"],
            "plain": plain,
            "fsn": is_fsn,
            "preferred": preferred and not is_fsn,
            "tags": [tag] if tag else [],
            "kinds": [kind.value] if kind else ([] if not is_fsn else ["other"]),
            "line": line.number,
            "count": 1,
        }

    def _definitions(self, path: Path, tally: Tally) -> Iterator[Row]:
        for line in self._valid(read_rf2(path, DESCRIPTION_COLUMNS, tally), tally, "conceptId"):
            f = line.fields
            if f["active"] != "1":
                tally.skip("inactive definition")
                continue
            tally.loaded += 1
            yield {
                "id": concept_id("SNOMEDCT", f["conceptId"]),
                "definition": f["term"],
                "sab": "SNOMEDCT",
                "line": line.number,
                "count": 1,
            }

    def _relationships(self, path: Path, tally: Tally) -> Iterator[Row]:
        lines = self._valid(
            read_rf2(path, RELATIONSHIP_COLUMNS, tally),
            tally,
            "sourceId",
            "destinationId",
            "typeId",
        )
        for line in lines:
            f = line.fields
            mapped = SNOMED_TYPES.get(f["typeId"])
            if f["active"] != "1":
                tally.skip("inactive relationship")
            elif f["characteristicTypeId"] not in (INFERRED, ADDITIONAL):
                tally.skip("stated relationship (inferred are loaded)")
            elif mapped is None:
                tally.skip(f"attribute not modelled: {f['typeId']}")
            elif not f["relationshipGroup"].isdigit():
                tally.reject(
                    line.number,
                    f"malformed relationshipGroup: {f['relationshipGroup']!r}",
                    "\t".join(f.values()),
                )
            else:
                tally.loaded += 1
                yield {
                    "start": concept_id("SNOMEDCT", f["sourceId"]),
                    "end": concept_id("SNOMEDCT", f["destinationId"]),
                    "type": mapped.type.value,
                    "source_rel": mapped.name,
                    "sab": "SNOMEDCT",
                    "group": int(f["relationshipGroup"]),
                    "active": True,
                    "effective_time": f["effectiveTime"],
                    "line": line.number,
                    "canonical": True,
                }


def _rf2_fields(path: Path, width: int) -> Iterator[list[str]]:
    """The fields of every data line of an RF2 file with ``width`` columns, for the
    pre-flight scans; lines that do not split into ``width`` fields (or are not UTF-8) are
    left to the load, which rejects them with their line."""
    with path.open("rb") as handle:
        next(handle, None)  # the header
        for raw in handle:
            parts = raw.decode("utf-8", "replace").rstrip("\r\n").split("\t")
            if len(parts) == width:
                yield parts
