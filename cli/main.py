"""Entry point of the ``sasaki`` command.

Each subcommand lives in its own module under ``cli/`` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a callable
taking the parsed arguments and returning the exit status.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys

# Subcommand modules, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = ("play", "host", "join", "tables", "demo", "audit", "export", "replay", "simulate")


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
    _hang_up_as_interrupt()
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt as error:
        from p2p_sasaki.cli.common import explain, say_error

        status, sentence = explain(error) or (130, "interrupted")
        say_error(sentence)
        return status


def _hang_up_as_interrupt() -> None:
    """A closed terminal (SIGHUP) ends the command like Ctrl-C (status 130, nothing sent):
    the handler raises SIGINT, which trio turns into a KeyboardInterrupt where it is safe."""
    if not hasattr(signal, "SIGHUP"):
        return

    def hang_up(signum: int, frame: object) -> None:
        from p2p_sasaki.cli import common

        common.terminal_closed = True
        signal.raise_signal(signal.SIGINT)

    try:
        signal.signal(signal.SIGHUP, hang_up)
    except ValueError:   # not the main thread (an embedding test): leave it
        pass
