"""``sasaki resume``: go on with an unfinished table saved in the data directory after a
crash (protocol/net/persist.py); ``--list`` shows them. ``sasaki``, ``host`` and ``join``
resume one too, unless ``--new`` (:func:`pending_table`)."""

from __future__ import annotations

import argparse
import datetime
import sys
from dataclasses import replace

import trio

from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.cli.common import (
    CliError,
    add_peer_options,
    bind_host,
    data_dir,
    load_identity,
    make_player,
    make_ui,
    prepare_directories,
    read_line,
    report,
    run_async,
    table_page,
)
from p2p_sasaki.cli.matches import play_roster
from p2p_sasaki.protocol.messages import TableRoster
from p2p_sasaki.protocol.net.persist import SavedTable, unfinished_tables


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "resume", help=COMMANDS["resume"],
        description="Resume the unfinished table saved in your data directory (the newest, or the one "
                    "whose id starts with TABLE): reconnect to the other players at the addresses saved "
                    "with the table, where their mDNS member records say they are now, or --address; "
                    "fetch what you missed, and play on. No code is needed.")
    parser.add_argument("table", metavar="TABLE", nargs="?", help="the start of the table's id (see --list)")
    parser.add_argument("--list", action="store_true", help="list the unfinished tables and exit")
    parser.add_argument("--address", metavar="N=HOST:PORT", action="append", default=[],
                        help="member N (1-4, as --list numbers them) now listens at HOST:PORT; repeatable")
    parser.add_argument("--no-mdns", action="store_true",
                        help="neither advertise where you listen now nor look for the others' member "
                             "records on the LAN (saved addresses and --address only)")
    add_peer_options(parser)
    parser.set_defaults(func=run)


def describe(saved: SavedTable) -> list[str]:
    records = len(saved.transcript_records())
    when = datetime.datetime.fromtimestamp(saved.directory.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    lines = [f"table {saved.roster.table_id.hex()[:12]}  last saved {when}  {records} transcript records  "
             f"transcript: {saved.transcript_path}"]
    lines += [f"    member {n}: {member}" for n, member in enumerate(saved.roster.members, 1)]
    return lines


def run(args: argparse.Namespace) -> int:
    if args.list:
        tables = unfinished_tables(data_dir(args))
        if not tables:
            print("No unfinished table in " + str(data_dir(args)) + ".")
        for saved in tables:
            print("\n".join(describe(saved)))
        return 0
    return run_async(resume, args)


def choose(args: argparse.Namespace) -> SavedTable:
    tables = unfinished_tables(data_dir(args))
    if args.table:
        tables = [t for t in tables if t.roster.table_id.hex().startswith(args.table.lower())]
    if not tables:
        raise CliError(f"no unfinished table{' ' + args.table if args.table else ''} in {data_dir(args)}")
    return tables[0]


def with_addresses(roster: TableRoster, addresses: list[str]) -> TableRoster:
    members = list(roster.members)
    for text in addresses:
        number, _, address = text.partition("=")
        host, _, port = address.rpartition(":")
        if not number.isdigit() or not 1 <= int(number) <= len(members) or not host or not port.isdigit():
            raise CliError(f"{text!r} is not a member's address like 2=192.168.1.23:40123")
        old = members[int(number) - 1]
        members[int(number) - 1] = replace(old, host=host, port=int(port))   # the id keeps its nonces
    return TableRoster(roster.table_id, tuple(members))


async def resume(args: argparse.Namespace, saved: SavedTable | None = None) -> int:
    saved = saved if saved is not None else choose(args)
    player = make_player(args)
    async with table_page(args, player):
        return await resume_saved(args, saved, player)


async def resume_saved(args: argparse.Namespace, saved: SavedTable, player: object) -> int:
    identity = load_identity(prepare_directories(args))
    addresses = args.address if isinstance(getattr(args, "address", None), list) else []   # join's is another
    roster = with_addresses(saved.roster, addresses)
    if identity.public_key not in roster:
        raise CliError(f"the saved table {saved.roster.table_id.hex()[:12]} is not this identity's")
    me = roster.member(identity.public_key)
    try:   # the saved port, so that the others' dials find me; else a new one (I dial them all)
        listeners = await trio.open_tcp_listeners(me.port, host=bind_host(args))
    except OSError:
        listeners = await trio.open_tcp_listeners(0, host=bind_host(args))
    if not args.quiet:
        print(f"Resuming table {roster.table_id.hex()[:12]} ...", flush=True)
    result = await play_roster(args, identity, roster, listeners, None, player, make_ui(args, player), saved)
    return report(result, args.quiet)


async def pending_table(args: argparse.Namespace) -> SavedTable | None:
    """The unfinished table that ``sasaki``/``host``/``join`` should resume instead of
    starting a new one: none with ``--new``; on a terminal, only if the person says yes."""
    if getattr(args, "new", False):
        return None
    tables = unfinished_tables(data_dir(args))
    if not tables:
        return None
    saved = tables[0]
    if sys.stdin.isatty() and not getattr(args, "bot", False):
        print("\n".join(["You have an unfinished table:", *describe(saved)]), flush=True)
        answer = await read_line("Resume it? [Y/n] (n starts a new table; 'sasaki resume --list' lists them) ")
        if not answer:
            from p2p_sasaki.cli.tui import InputEnded

            raise InputEnded()
        if answer.strip().lower() in ("n", "no"):
            return None
    return saved
