"""What the benchmarks that start their own Neo4j share: its settings and options, and the
run's metadata (when, where, which commit)."""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

from kgverify.config import Settings


def server_options(parser: argparse.ArgumentParser, port: int) -> None:
    """``--port``, ``--heap``, ``--pagecache`` of the benchmark's own server."""
    parser.add_argument("--port", type=int, default=port)
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache", default="1g")


def server_settings(work: Path, args: argparse.Namespace) -> Settings:
    """Settings for a fresh local Neo4j and cache under ``work``."""
    return Settings().model_copy(
        update={
            "neo4j_home": work / "home",
            "bolt_port": args.port,
            "neo4j_uri": None,
            "cache_dir": work / "cache",
            "neo4j_heap": args.heap,
            "neo4j_pagecache": args.pagecache,
        }
    )


def run_meta(**extra: Any) -> dict[str, Any]:
    """When, on what, at which commit, and the load average at the start."""
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "load": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip(),
        **extra,
    }
