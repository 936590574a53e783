"""Entry point of the ``sasaki`` command.

Each subcommand lives in its own module under ``cli/`` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a callable
taking the parsed arguments and returning the exit status. Only the module of the
subcommand asked for is imported (the others are listed from cli/commands.py), so a
command starts with just what it needs: ``sasaki audit`` never loads trio or zeroconf.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys

from p2p_sasaki.cli.commands import COMMANDS


def command_of(argv: list[str]) -> str | None:
    """The subcommand named in ``argv`` (its first word that is not an option), if any."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(only: str | None = None, others: bool = True) -> argparse.ArgumentParser:
    """The whole parser; with ``only``, that subcommand's full parser and a summary of the others
    (with ``others=False``, not even that: only what ``sasaki --help`` prints lists them, and
    each summary is a parser of its own, a few milliseconds of every start)."""
    parser = argparse.ArgumentParser(
        prog="sasaki",
        description=(
            "A serverless table for Sasaki (44A), the Korean climbing card game: "
            "four peers deal with mental poker, agree on every play and leave a "
            "signed transcript anyone can audit."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(f"p2p_sasaki.cli.{name}").register(subparsers)
        elif others:
            subparsers.add_parser(name, help=summary)
    return parser


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    argv = argv or ["play"]  # ``sasaki`` alone plays
    command = command_of(argv)
    # The other commands are listed only by `sasaki`'s own help, which something before the
    # command word (an option of `sasaki` itself: --help) would ask for; the command word first
    # goes straight to its own parser.
    parser = build_parser(only=command or "", others=command is None or argv[0] != command)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    _hang_up_as_interrupt()
    if getattr(args, "proof_workers", 0) > 0:   # before any thread: see quiet_resource_tracker
        from p2p_sasaki.protocol.net.workers import quiet_resource_tracker

        quiet_resource_tracker()
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
