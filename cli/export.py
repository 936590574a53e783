"""``sasaki export FILE [--out DIR]``: one game record per hand of a transcript.

The records (``docs/records.md``) show every seat's cards, so export a table's
transcript only once its hands are over; each file passes ``sasaki replay``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from p2p_sasaki.cli.commands import COMMANDS


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "export", help=COMMANDS["export"],
        description="Read a table transcript (.sasaki) and write each hand as a plain-text game "
                    "record (docs/records.md): NAME-hand1.txt, NAME-hand2.txt, ... in --out "
                    "(default: next to FILE). Each one passes 'sasaki replay'.")
    parser.add_argument("file", metavar="FILE", help="a transcript written by sasaki (.sasaki)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="directory for the records (default: FILE's directory)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from p2p_sasaki.protocol.table_audit import export_records

    path = Path(args.file)
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        print(f"sasaki export: --out {args.out} is a file, not a directory; name a directory (it is created "
              "if missing).", file=sys.stderr)
        return 2
    try:
        data = path.read_bytes()
    except OSError as error:
        print(f"sasaki export: cannot read {path}: {error.strerror or error}.", file=sys.stderr)
        return 2
    from p2p_sasaki.cli.audit import not_a_transcript

    problem = not_a_transcript(data)
    if problem is not None:
        print(f"sasaki export: {path} is not a transcript: {problem}.", file=sys.stderr)
        return 1
    try:
        records = export_records(data)
    except ValueError as error:
        print(f"sasaki export: {path} cannot be exported: {error}.", file=sys.stderr)
        return 1
    if not records:
        print(f"sasaki export: {path} has no finished hand to export.", file=sys.stderr)
        return 1
    out = args.out or path.parent
    try:
        out.mkdir(parents=True, exist_ok=True)
        for number, text in enumerate(records, 1):
            target = out / f"{path.stem}-hand{number}.txt"
            target.write_text(text, encoding="utf-8")
            print(target)
    except OSError as error:
        print(f"sasaki export: cannot write to {out}: {error.strerror or error}.", file=sys.stderr)
        return 2
    return 0
