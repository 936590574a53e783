"""``sasaki host``: create a table, show its code, advertise it, wait for three joiners, play."""

from __future__ import annotations

import argparse
import functools
import hashlib
import secrets
import subprocess
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import trio

from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.cli.common import (
    EXIT_USAGE,
    add_peer_options,
    add_table_options,
    bind_host,
    config_from_args,
    interfaces,
    lan_address,
    load_identity,
    make_player,
    make_ui,
    member_nonce,
    parse_code,
    prepare_directories,
    refuse_fast_with_person,
    report,
    run_async,
    say_error,
    spawn_bot_peers,
    table_page,
)
from p2p_sasaki.cli.matches import play_roster
from p2p_sasaki.cli.name import player_name
from p2p_sasaki.cli.pairs import (
    WAITING_ROOM_HINT,
    PairsError,
    WaitingRoomPairs,
    add_pairs_option,
    check_known,
    refuse_pairs_for_sasaki,
    with_pairs,
)
from p2p_sasaki.cli.resume import pending_table, resume
from p2p_sasaki.protocol.messages import default_name
from p2p_sasaki.protocol.net import (
    Advertisement,
    MemberJoined,
    MemberLeft,
    TableAd,
    TableCode,
    WrongCodeTried,
    advertise_table,
    browse_tables,
    host_table,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "host", help=COMMANDS["host"],
        description="Create a table: pick a one-time table code and show it, advertise the table on "
                    "the LAN (mDNS), admit the three players who type the code (or fill seats with "
                    "--bots N), then play the match and write its signed transcript.")
    add_table_options(parser)
    add_pairs_option(parser)
    add_peer_options(parser)
    parser.add_argument("--no-mdns", action="store_true",
                        help="do not advertise on the LAN: joiners must use --address HOST:PORT")
    parser.add_argument("--port", type=int, default=0, help="TCP port for joiners (default: any free port)")
    parser.add_argument("--code", help=argparse.SUPPRESS)         # demo/tests: use this code
    parser.add_argument("--ready-file", type=Path, help=argparse.SUPPRESS)  # demo/tests: HOST:PORT here
    parser.add_argument("--no-invite", action="store_true", help=argparse.SUPPRESS)  # demo: nobody else joins
    parser.add_argument("--demo", action="store_true", help=argparse.SUPPRESS)  # the demo's own peer (cli/demo.py)
    # Tests: keep the table number even when another table on the LAN has it (two tables, one number).
    parser.add_argument("--keep-number", action="store_true", help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if refuse_fast_with_person(args) or refuse_pairs_for_sasaki(args):
        return EXIT_USAGE
    if args.demo:
        from p2p_sasaki.cli import common

        common.demo_peer = True
    return run_async(host, args)


async def host(args: argparse.Namespace) -> int:
    saved = await pending_table(args)
    if saved is not None:
        return await resume(args, saved)
    player = make_player(args)
    async with table_page(args, player):
        return await _host(args, player)


async def _host(args: argparse.Namespace, player: object) -> int:
    directory = prepare_directories(args)
    identity = load_identity(directory)
    name = player_name(args, directory)
    pairs = getattr(args, "pairs", None)
    if pairs is not None:
        try:
            check_known(pairs, [name or default_name(identity.public_key)]
                        + [f"Bot {n}" for n in range(2, 2 + args.bots)], 3 - args.bots)
        except PairsError as error:
            say_error(str(error))
            return EXIT_USAGE
    code = parse_code(args.code) if args.code else TableCode.generate()
    config = config_from_args(args)
    room = WaitingRoomPairs(pairs, name or default_name(identity.public_key))
    ui = make_ui(args, player)
    bind = bind_host(args)
    join_listeners = await trio.open_tcp_listeners(args.port, host=bind)
    mesh_listeners = await trio.open_tcp_listeners(0, host=bind)
    join_port = join_listeners[0].socket.getsockname()[1]
    mesh_port = mesh_listeners[0].socket.getsockname()[1]
    address = f"{args.interface or lan_address()}:{join_port}"
    bots: list[subprocess.Popen[bytes]] = []
    try:
        async with AsyncExitStack() as advertised:   # the table stays listed (as full) while it plays
            ad = None
            if not args.no_mdns:
                code, ad = await _advertise_unique(advertised, args, code, join_port, name)
            print(f"Table code: {code}", flush=True)
            print(f"Join address (if multicast does not pass): {address}", flush=True)
            if not args.no_invite:
                print(f"Others join with: sasaki join {code}   or   sasaki join {code} --address {address}", flush=True)
            if args.ready_file:
                tmp = args.ready_file.with_suffix(".tmp")
                tmp.write_text(address)
                tmp.rename(args.ready_file)
            async with trio.open_nursery() as nursery:
                if args.bots:
                    bots = spawn_bot_peers(args.bots, str(code), address, directory, args.interface,
                                           kind=args.bot_kind or "search", level=args.level,
                                           # a person's bots agree by themselves
                                           next_match="no" if args.bot else "yes")
                    print(f"Started {args.bots} bot peer(s) as local processes.", flush=True)
                people = 3 - args.bots
                print(f"Waiting for {people} player(s) to join ..." if people else "Waiting for the bots to join ...",
                      flush=True)
                waiting = trio.CancelScope()
                reader = getattr(player, "reader", None)
                if getattr(args, "game", "sasaki") == "sasku" and reader is not None and not (args.quiet or args.demo):
                    print(WAITING_ROOM_HINT, flush=True)
                    nursery.start_soon(choose_partners, room, reader, waiting)
                    presenter = getattr(player, "presenter", None)
                    if presenter is not None:      # the page's waiting room too
                        presenter.partners_room = room
                        presenter.changed()

                def on_event(event: object) -> None:
                    if isinstance(event, MemberJoined):
                        room.joined(event.member)
                        if event.seats_taken >= 4:
                            room.full()      # the seating the last admission fitted is final
                            if getattr(player, "presenter", None) is not None:
                                player.presenter.changed()   # type: ignore[attr-defined]
                        print(f"{event.member} joined ({event.seats_taken} of 4 seats taken).", flush=True)
                        if args.ready_file:   # the demo admits its joiners one by one with a fixed deal
                            args.ready_file.with_suffix(".seats").write_text(str(event.seats_taken))
                    elif isinstance(event, MemberLeft):
                        room.left(event.member)
                        print(f"{event.member} left ({event.seats_taken} of 4 seats taken).", flush=True)
                    elif isinstance(event, WrongCodeTried):
                        print(f"{event}.", flush=True)
                    if ad is not None and isinstance(event, (MemberJoined, MemberLeft)):
                        nursery.start_soon(functools.partial(ad.update, event.seats_taken, full=event.seats_taken >= 4))

                roster = await host_table(identity, code, mesh_port, join_listeners, table_id=_table_id(args),
                                          nonce=member_nonce(args, identity), name=name,
                                          mesh_host=args.interface or "", on_event=on_event,
                                          fits=room.fits)
                waiting.cancel()
            if room.choice is not None:
                config = with_pairs(config, roster.members, room.choice)
            result = await play_roster(args, identity, roster, mesh_listeners, config, player, ui)
    except BaseException:
        for process in bots:   # never leave a bot peer behind, whatever failed
            process.kill()
        raise
    for process in bots:
        await trio.to_thread.run_sync(functools.partial(_wait, process))
    return report(result, args.quiet)


async def choose_partners(room: WaitingRoomPairs, reader: Any, scope: trio.CancelScope) -> None:
    """The creator's terminal in the waiting room: ``partners NAME+NAME`` or ``partners draw``
    (cli/pairs.py), until the table is full."""
    with scope:
        while not room.fixed:
            line = await reader.line()
            if line is None:
                return
            if line.strip():
                print(room.typed(line), flush=True)


NUMBER_CHECK = 2.0   # seconds a creator listens for another table with its number


async def _advertise_unique(stack: AsyncExitStack, args: argparse.Namespace, code: TableCode, port: int,
                            name: str) -> tuple[TableCode, Advertisement]:
    """Advertise the table; if another table on the LAN has its number (seen within
    :data:`NUMBER_CHECK` s, before anyone can join: the join port admits nobody yet), draw a
    new number and code and say so. ``--keep-number`` (tests) keeps it."""
    tries = 0
    while True:
        attempt = AsyncExitStack()
        try:
            ad = await attempt.enter_async_context(
                advertise_table(code.nameplate, port, interfaces=interfaces(args), creator=name,
                                game=getattr(args, "game", "sasaki")))
            if getattr(args, "keep_number", False):   # sasaki play has no such option
                break
            mine = ad.name

            def clash(seen: TableAd, nameplate: str = code.nameplate, mine: str = mine) -> bool:
                return seen.nameplate == nameplate and seen.name != mine

            seen = await browse_tables(NUMBER_CHECK, interfaces=interfaces(args), stop_when=clash)
        except BaseException:
            await attempt.aclose()
            raise
        taken = {ad.nameplate for ad in seen if ad.name != mine}
        if code.nameplate not in taken or tries == 4:   # 99 numbers: five clashes in a row mean a test
            break
        tries += 1
        await attempt.aclose()
        old = code.nameplate
        while code.nameplate in taken or code.nameplate == old:
            code = TableCode.generate()
        print(f"Table number {old} is already in use on this network; drew a new number and code.", flush=True)
    stack.push_async_exit(attempt)
    return code, ad


def _table_id(args: argparse.Namespace) -> bytes:
    """A fresh random table id; with the tests' --deal-seed, one derived from it."""
    if args.deal_seed is not None:
        return hashlib.sha256(f"sasaki test table {args.deal_seed}".encode()).digest()
    return secrets.token_bytes(32)


def _wait(process: subprocess.Popen[bytes]) -> None:
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
