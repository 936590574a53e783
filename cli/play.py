"""``sasaki play`` (the default command): browse the LAN, then join a table or create one."""

from __future__ import annotations

import argparse
import sys

from p2p_sasaki.cli import host as host_command
from p2p_sasaki.cli import join as join_command
from p2p_sasaki.cli import resume as resume_command
from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    CliError,
    add_peer_options,
    add_table_options,
    parse_code,
    read_line,
    refuse_fast_with_person,
    run_async,
    say_error,
    seconds,
)
from p2p_sasaki.cli.pairs import add_pairs_option, refuse_pairs_for_sasaki
from p2p_sasaki.cli.resume import pending_table
from p2p_sasaki.cli.tables import browse, table_line
from p2p_sasaki.protocol.net import TableAd, creator_label
from p2p_sasaki.protocol.net.discovery import TOURNAMENT_GAME


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play", help=COMMANDS["play"],
        description="List the tables (and tournaments) advertised on the LAN, then ask for a code to join "
                    "one (like 'sasaki join', or 'sasaki tournament join' for a tournament's code; type "
                    "'CODE HOST:PORT' when multicast does not pass), "
                    "or create a new table (like 'sasaki host') if you just press Enter.")
    add_table_options(parser, creating_only=True)
    add_pairs_option(parser)
    add_peer_options(parser)
    parser.add_argument("--browse-timeout", type=seconds, default=3.0, metavar="SECONDS",
                        help="how long to look for tables (default 3)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if refuse_fast_with_person(args) or refuse_pairs_for_sasaki(args):
        return EXIT_USAGE
    async def main() -> int:
        saved = await pending_table(args)
        if saved is not None:
            return await resume_command.resume(args, saved)
        args.new = True   # asked once: host/join below start a new table
        print("Looking for tables on the local network ...", flush=True)
        ns = argparse.Namespace(**vars(args))
        ns.timeout = args.browse_timeout
        ads = await browse(ns)
        for ad in ads:
            print("  " + table_line(ad))
        if not ads:
            print("  (none seen)")
        print("Type a table code to join (e.g. 7-purple-sausage, optionally followed by HOST:PORT), "
              "or press Enter to create a table:", flush=True)
        while True:
            text = await read_line()
            if not text:
                print("sasaki: no table code typed (end of input); nothing was sent.", file=sys.stderr)
                return EXIT_INTERRUPTED
            line = text.strip().split()
            if not line:
                args.no_mdns, args.port, args.code, args.ready_file, args.no_invite = False, 0, None, None, False
                return await host_command.host(args)
            problem = _code_problem(line)
            if problem is None:
                break
            print(f"{problem}. Type the code again, or press Enter to create a table:", flush=True)
        args.code = line[0]
        args.address = line[1] if len(line) > 1 else None
        args.creator = None
        same = [ad for ad in ads if ad.nameplate == parse_code(line[0]).nameplate]
        if same and all(ad.game == TOURNAMENT_GAME for ad in same):   # the code is a tournament's
            return await _join_tournament(args)
        if args.address is None and len(same) > 1:
            args.creator = _ask_creator(same)
            if args.creator is None:
                print("sasaki: no creator's name typed (end of input); nothing was sent.", file=sys.stderr)
                return EXIT_INTERRUPTED
        return await join_command.join(args)

    return run_async(main)


async def _join_tournament(args: argparse.Namespace) -> int:
    """A typed code whose number only a tournament advertises: join that tournament (a person
    plays; a tournament has no bots)."""
    from p2p_sasaki.cli import tournament

    if args.bot:
        say_error(tournament.NO_BOTS)
        return EXIT_USAGE
    ns = argparse.Namespace(**vars(args))
    ns.dir, ns.demo, ns.connect_timeout = None, False, 60.0
    return await tournament._join(ns)


def _ask_creator(same: list[TableAd]) -> str | None:
    """Which of several tables with the typed number to join, by its creator's name (the
    code is tried on that one only); None at the end of input."""
    print(f"{len(same)} tables have number {same[0].nameplate}, made by "
          f"{', '.join(creator_label(ad) for ad in same)}. Type the name of the one who gave you the code:",
          flush=True)
    names = {ad.creator for ad in same if ad.creator}
    if not names:   # nobody to pick by: the creator's join address tells the tables apart
        raise CliError("none of them gives a creator's name; ask for the join address and type the code "
                       "followed by HOST:PORT")
    while True:
        text = sys.stdin.readline()
        if not text:
            return None
        name = text.strip()
        if name in names:
            return name
        print(f"{name!r} made none of them. Type one of: {', '.join(sorted(names))}:", flush=True)


def _code_problem(words: list[str]) -> str | None:
    """Why ``CODE [HOST:PORT]`` cannot be joined, in one sentence; None when it can."""
    try:
        parse_code(words[0])
        if len(words) > 1:
            join_command.parse_address(words[1])
    except CliError as error:
        return str(error)
    if len(words) > 2:
        return "type a code and at most one address"
    return None
