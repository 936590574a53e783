"""Entry point of the ``sasaki`` command.

Each subcommand lives in its own module under ``cli/`` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a callable
taking the parsed arguments and returning the exit status.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Subcommand modules, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = ("play", "host", "join", "resume", "tables", "demo", "audit", "export", "replay", "simulate")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sasaki",
        description=(
            "A serverless table for Sasaki (44A), the Korean climbing card game: "
            "four peers deal with mental poker, agree on every play and leave a "
            "signed transcript anyone can audit."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"p2p_sasaki.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    if argv is None:
        argv = sys.argv[1:]
    args = parser.parse_args(argv or ["play"])  # ``sasaki`` alone plays
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
