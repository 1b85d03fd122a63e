"""Settings for every kgverify component, from the environment and a TOML file.

The settings are pydantic-settings. Connection settings use the names the Neo4j tooling
uses (``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``) so an existing
server, a cluster or Aura works unchanged. Everything kgverify-specific is prefixed
``KGVERIFY_``.

Precedence, highest first: values passed in (the CLI's options, ``Settings(x=...)``), the
environment, the config file (``--config FILE``, else ``$KGVERIFY_CONFIG``, else
``./kgverify.toml`` when it exists), the defaults.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_core import ErrorDetails
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from kgverify.errors import ConfigError

if TYPE_CHECKING:
    from kgverify.dates import DateShift

# The values of kgverify.verify.model.VerdictKind, repeated here because importing it pulls
# in the linker (seconds); tests/unit/test_settings_errors.py keeps the two equal.
VERDICT_KINDS = (
    "supported",
    "contradicted",
    "unsupported",
    "ambiguous",
    "unlinked",
    "type_mismatch",
)
URI_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
_SIZE = r"^\d+[kmgKMG]$"
# Never echoed back in an error message.
_SECRET_FIELDS = frozenset({"neo4j_password", "pseudonym_salt", "fhir_token"})
# The settings of the filter policy (kgverify.verify.verifier.FilterPolicy).
POLICY_FIELDS = frozenset({"verify_accept", "verify_min_score", "verify_min_confidence"})

CONFIG_FILE = "kgverify.toml"  # read from the current folder when it exists
CONFIG_ENV = "KGVERIFY_CONFIG"  # names another file
_chosen_file: Path | None = None  # the CLI's --config
# The keys the config file being read gave, so a bad value's error names the file.
_file_keys: ContextVar[tuple[Path, frozenset[str]] | None] = ContextVar("_file_keys", default=None)


def use_config_file(path: Path | None) -> None:
    """Read every later ``Settings()`` from ``path`` (what ``kgverify --config`` does).

    Args:
        path: the TOML file; None goes back to ``$KGVERIFY_CONFIG`` or ``./kgverify.toml``.
    """
    global _chosen_file
    _chosen_file = path


def config_file() -> Path | None:
    """The config file settings are read from, if any.

    ``--config``, else ``$KGVERIFY_CONFIG``, else ``kgverify.toml`` in the current folder
    when it exists, else none.

    Raises:
        ConfigError: the file named by ``--config`` or ``$KGVERIFY_CONFIG`` does not exist.
    """
    named = _chosen_file or (Path(os.environ[CONFIG_ENV]) if os.environ.get(CONFIG_ENV) else None)
    if named is not None:
        if not named.is_file():
            raise ConfigError(f"no such config file: {named}")
        return named
    found = Path(CONFIG_FILE)
    return found if found.is_file() else None


class _ConfigFileSource(TomlConfigSettingsSource):
    """The TOML config file: top-level keys are setting names (``verify_min_score = 0.9``).

    A key that is not one, or a file that is not TOML, is one error line.
    """

    def __init__(self, settings_cls: type[BaseSettings], path: Path) -> None:
        self.path = path
        super().__init__(settings_cls, toml_file=path)
        known = set(settings_cls.model_fields)
        for key in self.toml_data:
            if key not in known:
                close = difflib.get_close_matches(key, sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ConfigError(
                    f"{path}: unknown setting {key!r}{hint}; the keys are the setting names "
                    "of docs/configuration.md"
                )
        _file_keys.set((path, frozenset(self.toml_data)))

    def _read_file(self, file_path: Any) -> dict[str, Any]:
        try:
            return super()._read_file(file_path)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{self.path}: not valid TOML ({exc})") from None


def _default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kgverify"


class Settings(BaseSettings):
    """All configuration in one place; every field can be set by its environment variable.

    ``Settings(field=value)`` values win over the environment, which wins over the config
    file (:func:`config_file`), which wins over the defaults. docs/configuration.md lists
    every field with its variable.

    Raises:
        ConfigError: a value does not validate; one line naming the variable (or the config
            file key) and what was expected, never pydantic's multi-line report.
    """

    model_config = SettingsConfigDict(env_prefix="KGVERIFY_", extra="ignore", populate_by_name=True)

    neo4j_uri: str | None = Field(
        default=None,
        validation_alias=AliasChoices("NEO4J_URI", "KGVERIFY_NEO4J_URI"),
        description="Bolt/neo4j URI. Unset: the local server started by `kgverify neo4j start`.",
    )
    neo4j_user: str = Field(
        default="neo4j", validation_alias=AliasChoices("NEO4J_USER", "KGVERIFY_NEO4J_USER")
    )
    neo4j_password: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("NEO4J_PASSWORD", "KGVERIFY_NEO4J_PASSWORD"),
        description="Unset with a local server: read from its owner-only password file.",
    )
    neo4j_database: str = Field(
        default="neo4j",
        validation_alias=AliasChoices("NEO4J_DATABASE", "KGVERIFY_NEO4J_DATABASE"),
    )

    cache_dir: Path = Field(
        default_factory=_default_cache_dir,
        description="Build outputs and indexes (shared between servers).",
    )
    neo4j_home: Path | None = Field(
        default=None, description="Data folder of the local server; default <cache_dir>/neo4j."
    )
    bolt_port: int = Field(default=7687, ge=1, le=65535)
    http_port: int = Field(
        default=7474,
        ge=0,
        le=65535,
        description="HTTP port of the local server (Neo4j Browser, HTTP API); 0: none.",
    )
    neo4j_heap: str = Field(default="1g", pattern=_SIZE)
    neo4j_pagecache: str = Field(default="512m", pattern=_SIZE)
    neo4j_transaction_memory: str | None = Field(
        default=None,
        pattern=_SIZE,
        description="What one transaction of the local server may hold (e.g. 256m); "
        "unset: only the total over all transactions (70% of the heap) bounds it.",
    )
    start_timeout_s: float = Field(default=180.0, gt=0)
    neo4j_tx_timeout_s: float = Field(
        default=600.0,
        gt=0,
        description="Seconds any one transaction may run (waiting on locks included) before "
        "the server ends it; the run stops with one error line naming this setting.",
    )
    strict_rows: bool = Field(
        default=False,
        description="Check that every row of a named query holds values only, no nodes, "
        "relationships or paths (the test suite turns it on).",
    )

    batch_size: int = Field(default=10_000, ge=1, le=1_000_000)
    max_reject_share: float = Field(
        default=0.01, ge=0.0, le=1.0, description="A load fails when rejects exceed this share."
    )
    max_retire_share: float = Field(
        default=0.05,
        ge=0.0,
        le=1.0,
        description="A newer release that would retire more than this share of a "
        "vocabulary's active concepts or relationships, or whose files are this much shorter "
        "than the current release's, is held unless --allow-retire.",
    )

    link_threshold: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="lowest score a linked candidate may have (for a TF-IDF or one-edit "
        "neighbour: its estimated precision on the graph's held-out synonyms)",
    )
    link_margin: float = Field(
        default=0.05, ge=0.0, le=1.0, description="lead over the next group to be linked"
    )
    link_k: int = Field(default=15, ge=1, le=500, description="TF-IDF neighbours per mention")
    link_rerank: bool = Field(
        default=True, description="score TF-IDF candidates with the index's learned re-ranker"
    )
    link_alternatives: bool = Field(
        default=True,
        description="list TF-IDF neighbours after a name match's candidates (never decided on)",
    )
    index_min_df: int = Field(default=1, ge=1)
    index_m: int = Field(default=16, ge=2)
    index_ef_construction: int = Field(default=100, ge=10)
    index_ef_search: int = Field(default=100, ge=1)
    index_threads: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1)
    index_search: Literal["hnsw", "rare", "both"] = Field(
        default="both", description="how TF-IDF neighbours are found (docs/linking.md)"
    )
    index_rare_df: int = Field(
        default=3000, ge=1, description="a 3-gram in at most this many aliases is rare"
    )
    index_rare_share: float = Field(
        default=0.025,
        gt=0.0,
        le=1.0,
        description="...and in at most this share of the aliases (bounds it on a small KB)",
    )
    index_rare_pool: int = Field(
        default=50, ge=1, description="aliases rescored per mention by the rare search"
    )

    verify_max_depth: int = Field(
        default=3, ge=0, le=4, description="is-a steps above a relation's object that count"
    )
    verify_decay: float = Field(default=0.85, gt=0.0, le=1.0, description="score per is-a step")
    verify_hub_depth: int = Field(
        default=2, ge=0, le=3, description="levels below SNOMED CT's root that are hubs"
    )
    verify_hub_children: int = Field(
        default=200, ge=2, description="a concept with this many is-a children is a hub"
    )
    verify_hub_ids: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="more hub concept ids"
    )
    verify_max_paths: int = Field(default=3, ge=1, le=50, description="evidence paths per rule")
    verify_accept: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["supported"], description="verdicts that pass the filter"
    )
    verify_min_score: float = Field(default=0.5, ge=0.0, le=1.0)
    verify_min_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    verify_distractors: int = Field(default=10, ge=0, le=100)
    verify_cache: int = Field(
        default=20_000,
        ge=0,
        description="distinct (subject, object, predicate) triples whose rule evidence and "
        "enrichment a run keeps between batches (0: none)",
    )
    ingest_parallel: int = Field(
        default=2,
        ge=1,
        le=64,
        description="ingest batches written at once, each in its own transactions while the "
        "source is read on (1: one write in flight)",
    )
    verify_parallel: int = Field(
        default_factory=lambda: os.cpu_count() or 1,
        ge=1,
        le=64,
        description="rule reads sent at once (separate sessions)",
    )
    ray_address: str | None = Field(
        default=None,
        description="the ray engine: a cluster to join ('auto', 'ray://host:10001'); "
        "None starts a local Ray with ray_workers CPUs",
    )
    ray_workers: int = Field(
        default=2, ge=1, le=1024, description="the ray engine: actors per stage (one CPU each)"
    )
    derive_seed: int = Field(default=13, description="seed of splits and distractor choice")
    derive_options: int = Field(default=4, ge=2, le=10, description="options per QA item")
    derive_splits: dict[str, float] = Field(
        default_factory=lambda: {"train": 0.8, "validation": 0.1, "test": 0.1},
        description="share of patients per split (train, validation, test)",
    )
    derive_history: int = Field(
        default=10, ge=0, le=100, description="earlier conditions shown in a question"
    )
    derive_pool: int = Field(
        default=50, ge=1, le=1000, description="is-a siblings read per answer as distractors"
    )
    derive_near_depth: int = Field(
        default=3,
        ge=1,
        le=6,
        description="is-a steps above an item's topic that bound its neighbourhood: a "
        "distractor whose indications (or the clues' targets) share a non-hub ancestor this "
        "close is refused",
    )
    derive_drug_near_depth: int = Field(
        default=1,
        ge=1,
        le=6,
        description="the same bound for the treatment rules: a distractor drug is refused "
        "when an indication shares a non-hub ancestor this close with the item's condition "
        "(1: its parents, children and siblings)",
    )
    derive_known_pool: int = Field(
        default=5000,
        ge=0,
        le=1_000_000,
        description="well-described drugs / conditions read once per run; each item samples "
        "derive_pool of them as distractor candidates",
    )
    derive_variants: int = Field(
        default=1,
        ge=1,
        le=10,
        description="items kept per clinical content (task, stem, answer), each with another "
        "justified option set",
    )
    derive_split_by: Literal["topic_answer", "topic", "content", "patient"] = Field(
        default="topic_answer",
        description="the unit kept in one split: topic_answer (task, topic, answer: no test "
        "or validation pair of question topic and answer occurs in train), topic (task, "
        "topic), content (task, stem, answer) or patient",
    )
    derive_dates: Literal["shifted", "exact"] = Field(
        default="shifted",
        description="dates in published items, fact sheets, sample dialogues and review "
        "pages: shifted (per patient, 1 to 365 days either way, the same shift in every "
        "output; kgverify/dates.py) or exact (as recorded)",
    )
    derive_run: str = Field(
        default="latest",
        pattern=r"^(latest|all|[0-9]{8}-[0-9]{6}-[0-9a-f]{6})$",
        description="whose patients items and fact sheets are derived from: latest (the "
        "patients of the latest complete run, docs/runs.md), all (every patient in the "
        "graph) or a run id (`kgverify runs`)",
    )
    derive_fit_min_patients: int = Field(
        default=1,
        ge=1,
        le=1_000_000,
        description="a distractor must occur in at least this many patients of the cohort "
        "with the item patient's sex and life stage (docs/derivation.md, age and sex fit)",
    )
    facts_allergy_roots: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["SNOMEDCT:609328004", "SNOMEDCT:473011001"],
        description="concepts whose is-a descendants are allergies (allergic disposition, "
        "allergic condition)",
    )

    fhir_home: Path | None = Field(
        default=None, description="Data folder of the local FHIR server; default <cache_dir>/fhir."
    )
    fhir_port: int = Field(
        default=8080, ge=1, le=65535, description="HTTP port of the local FHIR server (127.0.0.1)."
    )
    fhir_heap: str = Field(default="1g", pattern=_SIZE)
    fhir_start_timeout_s: float = Field(
        default=300.0, gt=0, description="seconds the local FHIR server may take to answer"
    )
    fhir_url: str | None = Field(
        default=None,
        description="base URL of the FHIR server `kgverify fhir load` writes to; unset: the "
        "local server of `kgverify fhir start`",
    )
    fhir_count: int = Field(
        default=200, ge=1, le=1000, description="resources per page of a FHIR search (_count)"
    )
    fhir_read_workers: int = Field(
        default=4,
        ge=1,
        le=32,
        description="patients' records read from a FHIR server at once (fhir-rest)",
    )
    fhir_timeout_s: float = Field(
        default=120.0, gt=0, description="seconds per FHIR request (a transaction included)"
    )
    fhir_retries: int = Field(
        default=4, ge=0, le=20, description="retries of a FHIR request answered 429 or 5xx"
    )
    fhir_token: SecretStr | None = Field(
        default=None, description="bearer token for FHIR servers (never logged)"
    )
    fhir_token_file: Path | None = Field(
        default=None, description="owner-only file holding the bearer token for FHIR servers"
    )
    fhir_load_batch: int = Field(
        default=5, ge=1, le=1000, description="patients per transaction bundle of `fhir load`"
    )

    ehr_memory_limit: str = Field(
        default="256MB",
        pattern=r"(?i)^(\d+(\.\d+)?\s*(b|kb|mb|gb|tb|kib|mib|gib|tib))?$",
        description="memory of the EHR readers' DuckDB scratch database (sorts spill to disk "
        "beyond it); empty: DuckDB's default, 80% of the machine",
    )

    pseudonym_salt: SecretStr | None = Field(
        default=None,
        description="Key of the patient/encounter pseudonyms; unset: generated once into "
        "<cache_dir>/pseudonym-salt (keep it to get the same pseudonyms on a rerun)",
    )

    def __init__(self, **values: Any) -> None:
        """Read the settings; ``values`` are field names and win over every other source."""
        # Library users and the CLI alike get one line naming the variable, not pydantic's
        # multi-line report (or a JSON traceback from a settings source).
        token = _file_keys.set(None)
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise ConfigError("; ".join(_describe(e, values) for e in exc.errors())) from exc
        except SettingsError as exc:
            raise ConfigError(_describe_source_error(exc)) from exc
        finally:
            _file_keys.reset(token)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The sources in precedence order (pydantic-settings' hook); adds the config file."""
        # Passed-in values (CLI options) > environment > config file > defaults.
        path = config_file()
        from_file = (_ConfigFileSource(settings_cls, path),) if path is not None else ()
        return (init_settings, env_settings, *from_file, dotenv_settings, file_secret_settings)

    @property
    def policy_given(self) -> bool:
        """Whether a filter policy setting was given rather than left at its default.

        Given means by an option, the environment or the config file: derivation then
        re-applies the policy instead of using each assertion's stored ``passed``.
        """
        return bool(self.model_fields_set & POLICY_FIELDS)

    @field_validator("fhir_url")
    @classmethod
    def _fhir_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("expected an http(s)://host[:port]/path URL")
        return value

    @field_validator("neo4j_uri")
    @classmethod
    def _uri(cls, value: str | None) -> str | None:
        if value is None:
            return None
        shape = f"expected {'|'.join(URI_SCHEMES)}://host[:port], port 1-65535"
        try:
            parts = urlsplit(value)
            port = parts.port  # raises on a port that is not a number from 0 to 65535
        except ValueError:
            raise ValueError(shape) from None
        if parts.scheme not in URI_SCHEMES or not parts.hostname or port == 0:
            raise ValueError(shape)
        return value

    @field_validator("verify_hub_ids", "verify_accept", "facts_allergy_roots", mode="before")
    @classmethod
    def _list(cls, value: Any) -> Any:
        # The environment gives a string: a JSON list, or the natural `a,b` form.
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.startswith("["):
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                raise ValueError('expected a JSON list like ["a", "b"] or a,b') from None
        return [part.strip() for part in text.split(",") if part.strip()]

    @field_validator("verify_accept")
    @classmethod
    def _accept(cls, value: list[str]) -> list[str]:
        unknown = [v for v in value if v not in VERDICT_KINDS]
        if unknown:
            raise ValueError(
                f"unknown verdict {unknown[0]!r}; expected some of {', '.join(VERDICT_KINDS)}"
            )
        return value

    @field_validator("derive_splits")
    @classmethod
    def _splits(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = set(value) - {"train", "validation", "test"}
        if unknown or any(v < 0 for v in value.values()) or sum(value.values()) <= 0:
            raise ValueError("expected shares >= 0 for train, validation, test, not all zero")
        return value

    def date_shift(self) -> DateShift:
        """How this installation publishes dates (``derive_dates``; kgverify/dates.py)."""
        from kgverify.dates import DateShift

        return DateShift(self.derive_dates, self.salt() if self.derive_dates == "shifted" else "")

    def salt(self) -> str:
        """The pseudonym salt: the setting, else the generated owner-only file."""
        from kgverify.secrets import secret_file

        if self.pseudonym_salt is not None:
            return self.pseudonym_salt.get_secret_value()
        value = secret_file(self.cache_dir / "pseudonym-salt", create=True)
        assert value is not None
        return value

    @property
    def fhir_local_home(self) -> Path:
        """The local FHIR server's folder (H2 store, log, state)."""
        return self.fhir_home if self.fhir_home is not None else self.cache_dir / "fhir"

    @property
    def local_home(self) -> Path:
        """The local server's folder (data, logs, password file)."""
        return self.neo4j_home if self.neo4j_home is not None else self.cache_dir / "neo4j"


def env_name(field: str) -> str:
    """The environment variable of a setting (or of a name an error gave back)."""
    info = Settings.model_fields.get(field)
    if info is None:
        return field.upper()  # already an alias such as NEO4J_URI
    alias = info.validation_alias
    if isinstance(alias, AliasChoices) and isinstance(alias.choices[0], str):
        return alias.choices[0]
    return f"KGVERIFY_{field.upper()}"


def _field_of(name: str) -> str:
    for field, info in Settings.model_fields.items():
        alias = info.validation_alias
        if isinstance(alias, AliasChoices) and name in alias.choices:
            return field
    return name


def with_options(settings: Settings, **options: tuple[str, Any]) -> Settings:
    """A copy of ``settings`` with command-line values, each checked by its setting's rules.

    Args:
        settings: the settings to start from; not changed.
        **options: ``field=("--option", value)``; a value of None was not given and is
            skipped.

    Returns:
        The updated copy.

    Raises:
        ConfigError: a value does not validate, naming the option:
            ``--min-score='abc': expected a number``.
    """
    updated = settings.model_copy()
    for field, (option, value) in options.items():
        if value is None:
            continue
        try:
            Settings.__pydantic_validator__.validate_assignment(updated, field, value)
        except ValidationError as exc:
            raise ConfigError(f"{option}={value!r}: {_expected(exc.errors()[0])}") from None
    return updated


def _describe(error: ErrorDetails, given: dict[str, Any] | None = None) -> str:
    """``KGVERIFY_BATCH_SIZE='abc': expected an integer``: the variable, its value, the rule.

    ``kgverify.toml: batch_size='abc': ...`` when the value came from the config file.
    """
    name = str(error["loc"][0]) if error["loc"] else ""
    field = _field_of(name)
    value = "" if field in _SECRET_FIELDS else f"={error['input']!r}"
    in_file = _file_keys.get()
    from_env = any(k.upper() in _env_names(field) for k in os.environ)
    if in_file and field in in_file[1] and not from_env and field not in (given or {}):
        return f"{in_file[0]}: {field}{value}: {_expected(error)}"
    return f"{env_name(field)}{value}: {_expected(error)}"


def _env_names(field: str) -> set[str]:
    info = Settings.model_fields.get(field)
    alias = info.validation_alias if info is not None else None
    if isinstance(alias, AliasChoices):
        return {str(c).upper() for c in alias.choices}
    return {f"KGVERIFY_{field.upper()}"}


def _expected(error: ErrorDetails) -> str:
    kind, ctx = error["type"], error.get("ctx", {})
    words = {
        "int_parsing": "expected an integer",
        "int_type": "expected an integer",
        "int_from_float": "expected an integer",
        "float_parsing": "expected a number",
        "float_type": "expected a number",
        "bool_parsing": "expected true or false",
        "list_type": "expected a list",
        "dict_type": 'expected a JSON object like {"train": 0.8}',
    }
    bounds = {
        "greater_than_equal": (">=", "ge"),
        "greater_than": (">", "gt"),
        "less_than_equal": ("<=", "le"),
        "less_than": ("<", "lt"),
    }
    if kind in words:
        return words[kind]
    if kind in bounds:
        sign, key = bounds[kind]
        return f"expected a value {sign} {ctx.get(key)}"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == _SIZE:
        return "expected a size such as 512m or 2g"
    message = error["msg"].removeprefix("Value error, ")
    return message[:1].lower() + message[1:]


def _describe_source_error(exc: SettingsError) -> str:
    # pydantic-settings names the field only in its message ("... for field "x" from ...").
    found = re.search(r'field "([^"]+)"', str(exc))
    if found is None:
        return f"settings: {exc}"
    field = found.group(1)
    name = env_name(field)
    raw = next((v for k, v in os.environ.items() if k.upper() == name), None)
    value = "" if raw is None or field in _SECRET_FIELDS else f"={raw!r}"
    cause = f" ({exc.__cause__})" if isinstance(exc.__cause__, json.JSONDecodeError) else ""
    return f"{name}{value}: expected JSON{cause}"
