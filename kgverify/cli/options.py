"""The options and arguments several commands share, one decorator each, and the
registries' names as choices (read on first use)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from kgverify.config import Settings, with_options

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
rejects_option = click.option(
    "--rejects", type=click.Path(path_type=Path), help="Rejected rows, with where and why (JSONL)."
)
relations_argument = click.argument(
    "relations", type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
trajectories_option = click.option(
    "--trajectories",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Trajectories JSONL whose notes give context for abbreviations.",
)


def policy_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--accept``, ``--min-score``, ``--min-confidence``: the filter policy, checked as the
    settings they override are (docs/configuration.md)."""
    for option in reversed(
        (
            click.option(
                "--accept",
                metavar="VERDICTS",
                help="Filter policy: verdicts that pass, comma list (default: supported; "
                "KGVERIFY_VERIFY_ACCEPT).",
            ),
            click.option(
                "--min-score",
                metavar="SCORE",
                help="Filter policy: lowest deciding-path score, 0 to 1 (default 0.5).",
            ),
            click.option(
                "--min-confidence",
                metavar="CONFIDENCE",
                help="Filter policy: lowest extractor confidence, 0 to 1 (default 0).",
            ),
        )
    ):
        command = option(command)
    return command


def with_policy(
    settings: Settings, accept: str | None, min_score: str | None, min_confidence: str | None
) -> Settings:
    """The settings with the policy options given on the command line."""
    return with_options(
        settings,
        verify_accept=("--accept", accept),
        verify_min_score=("--min-score", min_score),
        verify_min_confidence=("--min-confidence", min_confidence),
    )


def from_setting(name: str) -> str:
    """What help shows as the default of an option that overrides a setting: the setting's
    own default and its name, ``[default: 0.8, setting link_threshold]`` (the environment
    variable ``KGVERIFY_<NAME>`` or kgverify.toml may change it; docs/configuration.md)."""
    field = Settings.model_fields[name]
    default = field.get_default(call_default_factory=True)
    return f"{default}, setting {name}"


class RegistryChoice(click.Choice[str]):
    """A choice among the names of a registry (``kgverify.registry``), in its order, read
    when first needed (a value to check, a help to show): importing the stages behind the
    registries costs seconds that ``kgverify --help`` should not pay."""

    def __init__(self, names: Callable[[], Iterable[str]]) -> None:
        self._names = names
        self._read: tuple[str, ...] | None = None
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        if self._read is None:
            self._read = tuple(self._names())
        return self._read

    @choices.setter
    def choices(self, _value: Iterable[str]) -> None:
        pass  # click's __init__ sets the choices; here they come from the registry


def _names(registry: str) -> Callable[[], Iterable[str]]:
    """The names of one of ``kgverify.api.registries``, read when first needed."""

    def names() -> Iterable[str]:
        from kgverify.api import registries

        found: Iterable[str] = getattr(registries, registry)()
        return found

    return names


def _described(registry: str) -> str:
    """Each name of one of ``kgverify.api.registries`` with its description, "a (what) or
    b (what)", for a help text."""
    from kgverify.api import registries

    described = getattr(registries, registry)().describe()
    named = [f"{name} ({what})" for name, what in described.items()]
    return f"{', '.join(named[:-1])} or {named[-1]}" if len(named) > 1 else named[0]


class RegistryHelpOption(click.Option):
    """An option whose help names a registry's entries with their descriptions
    (``{names}`` in its help), filled in when the help is shown: the registry is read only
    then."""

    def __init__(self, *args: Any, registry: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.registry = registry

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        if self.help and "{names}" in self.help:
            self.help = self.help.replace("{names}", _described(self.registry))
        return super().get_help_record(ctx)


def engine_option(default: str | None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--engine``: where the batches of linking, verification and derivation run
    (docs/scale.md); the engines and what each does come from the registry."""
    return click.option(
        "--engine",
        type=RegistryChoice(_names("engines")),
        default=default,
        show_default=default is not None,
        help="Where batches and pages of patients run: {names}; ray_address names a Ray "
        "cluster (default: a local one). The output is the same.",
        cls=RegistryHelpOption,
        registry="engines",
    )


def tasks_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--task`` (repeatable): a QA task of the registry."""
    return click.option(
        "--task", "tasks", multiple=True, type=RegistryChoice(_names("qa_tasks")), help=help
    )


def seed_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--seed``: overrides the derive_seed setting."""
    return click.option("--seed", type=int, help=help, cls=SettingOption, setting="derive_seed")


def facts_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--facts``: the fact sheets of ``kgverify derive facts`` (a folder or its file)."""
    return click.option("--facts", type=click.Path(exists=True, path_type=Path), help=help)


def base_url_option(
    help: str = "openai: the server's API root, e.g. http://127.0.0.1:8000/v1.",
    required: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--base-url`` (or OPENAI_BASE_URL): an OpenAI-compatible server."""
    return click.option("--base-url", envvar="OPENAI_BASE_URL", required=required, help=help)


def api_key_option(
    help: str = "openai: bearer token, if any.",
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--api-key`` (or OPENAI_API_KEY)."""
    return click.option("--api-key", envvar="OPENAI_API_KEY", help=help)


concurrency_option = click.option(
    "--concurrency",
    type=click.IntRange(1, 256),
    default=4,
    show_default=True,
    help="openai: requests in flight at once.",
)


class SourcesHelp(click.Command):
    """A command whose help says ``SOURCE is {sources}.``: each EHR source with what its
    PATH is, from the registry, filled in when the help is shown."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.help = (self.help or "").replace("{sources}", _described("ehr_sources"))
        super().format_help_text(ctx, formatter)


class SettingOption(click.Option):
    """An option that overrides a setting (``setting=``): its help shows the setting's
    default and name (``from_setting``); None, the option's own default, means "use the
    setting"."""

    def __init__(self, *args: Any, setting: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.setting = setting

    def get_help_extra(self, ctx: click.Context) -> click.types.OptionHelpExtra:
        extra = super().get_help_extra(ctx)
        extra["default"] = from_setting(self.setting)
        return extra


def out_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The required ``-o/--out`` file of a command that writes JSONL."""
    return click.option(
        "-o", "--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help=what
    )


out_dir_option = click.option(
    "-o",
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Output folder (replaced when the run completes).",
)


def run_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--run`` and ``--all-patients``: whose patients a derivation reads (derive_run)."""
    command = click.option(
        "--all-patients",
        is_flag=True,
        help="Read every patient in the graph, whatever run brought them.",
    )(command)
    return click.option(
        "--run",
        metavar="ID",
        help="Read the patients of this run (`kgverify runs`).",
        cls=SettingOption,
        setting="derive_run",
    )(command)


def chosen_run(run: str | None, all_patients: bool) -> str | None:
    """The derive_run setting the options give (None: the setting's own, default latest)."""
    if run is not None and all_patients:
        raise click.UsageError("--run and --all-patients exclude each other")
    return "all" if all_patients else run


ehr_source = click.argument("source", type=RegistryChoice(_names("ehr_sources")))


class EhrPath(click.ParamType[Path | str]):
    """PATH of an EHR source, checked as that SOURCE reads it: an existing file or folder,
    or a server's URL for `fhir-rest`."""

    name = "path"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from kgverify.api import source_location
        from kgverify.errors import KgverifyError

        source = ctx.params.get("source") if ctx is not None else None
        if not isinstance(source, str):
            return Path(value)
        try:
            return source_location(source, value)
        except KgverifyError as exc:
            self.fail(str(exc), param, ctx)


ehr_path = click.argument("path", type=EhrPath())


vocabulary_argument = click.argument(
    "vocabulary", type=RegistryChoice(_names("vocabulary_loaders"))
)
extractor_option = click.option(
    "--extractor",
    type=RegistryChoice(_names("extractors")),
    default="template",
    show_default=True,
    help="Which extractor proposes relations.",
)
