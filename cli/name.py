"""``sasaki name [NEW]``: the name you play under, kept beside your identity.

A name is 1-24 printable characters (the rule is the wire's: ``name_problem`` in
protocol/messages/names.py); surrounding spaces are stripped. It lives in ``DATA_DIR/name``
(UTF-8, owner-only). ``--name NAME`` on play/host/join/demo plays one table under another
name without changing the stored one. On a terminal, the first table asks for it once
(default: the login user name, when that is a valid name).
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path

from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.cli.common import CliError, add_data_dir_option, data_dir
from p2p_sasaki.protocol.messages import name_problem

NAME_FILE = "name"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "name", help=COMMANDS["name"],
        description="Show the name the other players see you under, or change it: 1-24 printable "
                    "characters, kept in DATA_DIR/name beside your identity key.")
    parser.add_argument("new", nargs="?", metavar="NEW", help="your new name (e.g. Mina)")
    add_data_dir_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        directory = data_dir(args)
        if args.new is None:
            name = stored_name(directory)
            if name is None:
                print("You have no name yet; choose one with 'sasaki name NEW'.")
            else:
                print(name)
            return 0
        name = clean_name(args.new)
        save_name(directory, name)
    except CliError as error:
        print(f"sasaki: {error}.", file=sys.stderr)
        return 1
    print(f"Your name is now {name}.")
    return 0


def clean_name(text: str) -> str:
    """``text`` without surrounding spaces, if that is a name; else a :class:`CliError`.

    >>> clean_name("  Mina ")
    'Mina'
    """
    name = text.strip(" ")
    problem = name_problem(name)
    if problem is not None:
        raise CliError(f"{text!r} is not a name: {problem}")
    return name


def stored_name(directory: Path) -> str | None:
    """The name in ``DIRECTORY/name``, or None when there is none yet."""
    path = directory / NAME_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise CliError(f"cannot read your name from {path} ({error}); set it again with 'sasaki name NEW'") from None
    name = text.rstrip("\n")
    if name_problem(name) is not None:
        raise CliError(f"{path} does not hold a valid name; set it again with 'sasaki name NEW'")
    return name


def save_name(directory: Path, name: str) -> None:
    """Write ``name`` to ``DIRECTORY/name`` (owner-only), replacing it atomically."""
    path = directory / NAME_FILE
    tmp = path.with_name(NAME_FILE + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(name + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def login_name() -> str | None:
    """The login user name, if it is a valid name."""
    try:
        name = getpass.getuser()
    except Exception:   # no user database entry, no environment variable: no default
        return None
    return name if name_problem(name) is None else None


def player_name(args: argparse.Namespace, directory: Path) -> str:
    """The name this peer plays under: ``--name``, else the stored one, else (a person at a
    terminal, the first time) asked once and stored; "" when there is none (the protocol
    then calls the member by its key, ``peer 1a2b3c4d``)."""
    given = getattr(args, "name", None)
    if given is not None:
        return clean_name(given)
    stored = stored_name(directory)
    if stored is not None:
        return stored
    if args.bot or args.quiet or not sys.stdin.isatty():
        return ""
    name = ask_name(login_name())
    save_name(directory, name)
    print("Saved. Change it any time with 'sasaki name NEW'.", flush=True)
    return name


def ask_name(default: str | None) -> str:
    """Ask for a name until a valid one is typed (Enter: ``default``)."""
    from p2p_sasaki.cli.tui import InputEnded

    hint = f" [{default}]" if default else ""
    print(f"Your name at the table (1-24 characters){hint}:", flush=True)
    while True:
        text = sys.stdin.readline()
        if not text:
            raise InputEnded()
        text = text.rstrip("\n")
        if not text.strip() and default:
            return default
        try:
            return clean_name(text)
        except CliError as error:
            print(f"{error}. Type another name:", flush=True)
