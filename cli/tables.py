"""``sasaki tables``: list the tables advertised on the LAN (mDNS)."""

from __future__ import annotations

import argparse
import json

from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.cli.common import interfaces, run_async, seconds
from p2p_sasaki.protocol.net import PROTOCOL_VERSION, TableAd, browse_tables
from p2p_sasaki.protocol.net.discovery import TOURNAMENT_GAME


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "tables", help=COMMANDS["tables"],
        description="Browse the LAN (mDNS, _sasaki._tcp) for a few seconds and list the tables "
                    "seen: nameplate, seats taken, addresses and join port. These are hints; "
                    "joining needs the table's code.")
    parser.add_argument("--timeout", type=seconds, default=3.0, metavar="SECONDS",
                        help="how long to listen (default 3)")
    parser.add_argument("--interface", metavar="ADDRESS", default=None,
                        help="browse only on the interface with this IPv4 address (default: all)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON list instead: per table its name, nameplate, seats_taken, "
                             "port, addresses, version, creator (a name or null), full and game (sasaki or "
                             "sasku)")
    parser.set_defaults(func=run)


async def browse(args: argparse.Namespace) -> list[TableAd]:
    return await browse_tables(args.timeout, interfaces=interfaces(args))


def table_line(ad: TableAd) -> str:
    """One line per table: ``table 19 by Mina: 2 of 4 seats taken, at 10.0.0.5:40123``
    (a Sasku table: ``table 19 by Mina (Sasku): ...``; a Sasaki table names no game; a
    tournament: ``tournament 19 by Mina (Sasku): 6 player(s) in, at ...``)
    (``full`` instead of the seats once it is full or started). The creator's name is a
    hint: one that is not a valid name (say, with control characters) never gets here."""
    addresses = ", ".join(f"{a}:{ad.port}" for a in ad.addresses)
    note = "" if ad.version == PROTOCOL_VERSION else f" (protocol v{ad.version}: not joinable)"
    by = f" by {ad.creator}" if ad.creator else ""
    if ad.game == TOURNAMENT_GAME:   # a duplicate Sasku tournament: players, not seats
        players = "started" if ad.full else f"{ad.seats_taken} player(s) in"
        return f"tournament {ad.nameplate}{by} (Sasku): {players}, at {addresses}{note}"
    game = "" if ad.game == "sasaki" else f" ({ad.game.capitalize()})"
    seats = "full" if ad.full else f"{ad.seats_taken} of 4 seats taken"
    return f"table {ad.nameplate}{by}{game}: {seats}, at {addresses}{note}"


def run(args: argparse.Namespace) -> int:
    async def main() -> int:
        ads = await browse(args)
        if args.json:
            print(json.dumps([{"name": a.name, "nameplate": a.nameplate, "seats_taken": a.seats_taken,
                               "port": a.port, "addresses": list(a.addresses), "version": a.version,
                               "creator": a.creator, "full": a.full, "game": a.game}
                              for a in ads]))
        elif not ads:
            print(f"No table seen within {args.timeout:g} s. Create one with 'sasaki host', or, if "
                  "multicast does not pass here, join by address (see 'sasaki join --help').")
        else:
            for ad in ads:
                print(table_line(ad))
        return 0

    return run_async(main)
