"""``sasaki join CODE [--address HOST:PORT]``: join a table by its code and play."""

from __future__ import annotations

import argparse

import trio

from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.cli.common import (
    CliError,
    add_peer_options,
    bind_host,
    interfaces,
    load_identity,
    make_player,
    make_ui,
    member_nonce,
    parse_code,
    prepare_directories,
    report,
    run_async,
    seconds,
    table_page,
)
from p2p_sasaki.cli.matches import play_roster
from p2p_sasaki.cli.name import clean_name, player_name
from p2p_sasaki.cli.resume import pending_table, resume
from p2p_sasaki.protocol.net import find_and_join_table, join_table


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "join", help=COMMANDS["join"],
        description="Join the table whose code you were given (like 7-purple-sausage): find it on "
                    "the LAN by mDNS, or at --address HOST:PORT when multicast does not pass, "
                    "then play. The table options are the creator's.")
    parser.add_argument("code", metavar="CODE", help="the table code, e.g. 7-purple-sausage")
    parser.add_argument("--address", metavar="HOST:PORT",
                        help="the creator's join address (shown on its screen): skip mDNS")
    parser.add_argument("--browse-timeout", type=seconds, default=5.0, metavar="SECONDS",
                        help="how long to look for the table on the LAN (default 5)")
    parser.add_argument("--creator", metavar="NAME", default=None,
                        help="when two tables on the LAN have your code's number, join the one whose "
                             "creator is called NAME ('sasaki tables' lists the creators)")
    add_peer_options(parser)
    parser.set_defaults(func=run)


def parse_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise CliError(f"{text!r} is not an address like 192.168.1.23:40123")
    return host, int(port)


def run(args: argparse.Namespace) -> int:
    return run_async(join, args)


async def join(args: argparse.Namespace) -> int:
    saved = await pending_table(args)
    if saved is not None:
        return await resume(args, saved)
    player = make_player(args)
    async with table_page(args, player):
        return await _join(args, player)


async def _join(args: argparse.Namespace, player: object) -> int:
    code = parse_code(args.code)
    address = parse_address(args.address) if args.address else None
    directory = prepare_directories(args)
    identity = load_identity(directory)
    name = player_name(args, directory)
    creator = clean_name(args.creator) if getattr(args, "creator", None) else None
    ui = make_ui(args, player)
    mesh_listeners = await trio.open_tcp_listeners(0, host=bind_host(args))
    mesh_port = mesh_listeners[0].socket.getsockname()[1]
    where = f"at {args.address}" if address else "on the local network"
    if creator is not None and not address:
        where = f"({creator}'s) {where}"

    def admitted() -> None:   # said only once the creator seated you: a full table says only that
        if not args.quiet:
            print(f"You have a seat at table {code.nameplate} {where}; waiting until all four seats are "
                  "taken ...", flush=True)

    if address:
        roster = await join_table(identity, code, address, mesh_port, mesh_host=args.interface or "",
                                  nonce=member_nonce(args, identity), name=name, on_admitted=admitted)
    else:
        roster = await find_and_join_table(identity, code, mesh_port, interfaces=interfaces(args),
                                           browse_timeout=args.browse_timeout, mesh_host=args.interface or "",
                                           nonce=member_nonce(args, identity), name=name, creator=creator,
                                           on_admitted=admitted)
    result = await play_roster(args, identity, roster, mesh_listeners, None, player, ui)
    return report(result, args.quiet)
