"""``sasaki tournament host|join|demo``: a duplicate Sasku tournament on the LAN.

The network's side is protocol/net/tournament.py; this module parses, shows the code, the
players joining, each round's seating and the standings after every round (cli/standings.py),
and writes the tournament folder (protocol/tournament_files.py) that ``sasaki audit DIR``
checks. ``demo`` starts N bot peers as local processes over 127.0.0.1, then audits the folder.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.cli.common import EXIT_USAGE, CliError, positive, say_error

EXIT_AUDIT = 1
MAX_DEMO_PLAYERS = 16


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "tournament", help=COMMANDS["tournament"],
        description="A duplicate Sasku tournament on the LAN: in every round each table plays the same "
                    "deal, shuffled by every player so that nobody knows it, and each line's result is "
                    "compared with the same line at the other tables. 'host' starts one and shows its "
                    "code, 'join CODE' joins one, 'demo' lets bots play one on this machine.")
    commands = parser.add_subparsers(dest="tournament_command", metavar="host|join|demo")
    from p2p_sasaki.cli.common import add_data_dir_option, add_name_option

    host = commands.add_parser(
        "host", help="start a tournament: show its code, admit players, start when you say so",
        description="Start a tournament: show a one-time code and advertise the tournament on the LAN "
                    "(mDNS). Players join with 'sasaki tournament join CODE'. Once at least four have "
                    "joined, press Enter to start (nobody joins after that). Every player signs the "
                    "roster; then the rounds are played, the standings shown after each.")
    host.add_argument("--rounds", type=positive, default=3, metavar="N", help="rounds to play (default 3)")
    host.add_argument("--tournament-name", default="", metavar="TEXT",
                      help="the tournament's name, shown to every player and kept in its roster")
    _add_common(host, add_data_dir_option, add_name_option)
    host.add_argument("--no-mdns", action="store_true",
                      help="do not advertise on the LAN: players join with --address HOST:PORT")
    host.add_argument("--port", type=int, default=0, help="TCP port for joiners (default: any free port)")
    host.add_argument("--start-at", type=int, default=None, help=argparse.SUPPRESS)   # demo: start at N players
    host.add_argument("--ready-file", type=Path, default=None, help=argparse.SUPPRESS)  # demo: CODE HOST:PORT
    host.set_defaults(func=run_host)

    join = commands.add_parser(
        "join", help="join a tournament with the code its host shows",
        description="Join the tournament whose code you were given: found on the LAN by mDNS, or at "
                    "--address HOST:PORT. You play every round at the table the standings give you.")
    join.add_argument("code", metavar="CODE", help="the tournament's code, e.g. 7-purple-sausage")
    join.add_argument("--address", metavar="HOST:PORT", help="the host's join address: skip mDNS")
    _add_common(join, add_data_dir_option, add_name_option)
    join.set_defaults(func=run_join)

    demo = commands.add_parser(
        "demo", help="bots play a tournament on this machine, then its folder is audited",
        description="Start N bot players as separate processes on 127.0.0.1 (one hosts, the others "
                    "join with its code), let them play R rounds over the real protocol (the boards, "
                    "the tables, the signed results), then audit the folder DIR and print the "
                    "standings.")
    demo.add_argument("--players", type=positive, default=8, metavar="N",
                      help=f"players, 4 to {MAX_DEMO_PLAYERS} (default 8: two tables)")
    demo.add_argument("--rounds", type=positive, default=2, metavar="R", help="rounds (default 2)")
    demo.add_argument("--dir", type=Path, default=None, metavar="DIR",
                      help="the tournament folder (default: a new temporary directory)")
    demo.add_argument("--seed", type=int, default=None, help="seed of the bots' choices")
    demo.set_defaults(func=run_demo)
    parser.set_defaults(func=lambda args: _no_subcommand(parser))


def _add_common(parser: argparse.ArgumentParser, add_data_dir_option: Any, add_name_option: Any) -> None:
    group = parser.add_argument_group("this player")
    add_data_dir_option(group)
    add_name_option(group)
    group.add_argument("--interface", metavar="ADDRESS", default=None,
                       help="use only the network interface with this IPv4 address (127.0.0.1 keeps "
                            "everything on this machine)")
    group.add_argument("--dir", type=Path, default=None, metavar="DIR",
                       help="the tournament folder (default: DATA_DIR/tournaments/<its id>)")
    group.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                       help="how long you have for a decision before it is declined where it can be (default 30)")
    group.add_argument("--quiet", action="store_true", help="print only the standings")
    group.add_argument("--bot", action="store_true", help=argparse.SUPPRESS)   # refused: a sentence says why
    group.add_argument("--demo", action="store_true", help=argparse.SUPPRESS)  # a demo's bot player
    group.add_argument("--seed", type=int, default=None, help=argparse.SUPPRESS)
    group.add_argument("--connect-timeout", type=float, default=60.0, help=argparse.SUPPRESS)


def _no_subcommand(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return EXIT_USAGE


NO_BOTS = ("a tournament of people has no bots: a bot's runner would see a hand that is also played at "
           "the other tables (byes take up odd numbers; 'sasaki tournament demo' lets bots play one)")


def _refused(args: argparse.Namespace) -> str | None:
    if args.bot:
        return NO_BOTS
    if getattr(args, "rounds", 1) > 255:
        return "a tournament has at most 255 rounds"
    return None


def run_host(args: argparse.Namespace) -> int:
    problem = _refused(args)
    if problem is not None:
        say_error(problem)
        return EXIT_USAGE
    from p2p_sasaki.cli.common import run_async

    return run_async(_host, args)


def run_join(args: argparse.Namespace) -> int:
    problem = _refused(args)
    if problem is not None:
        say_error(problem)
        return EXIT_USAGE
    from p2p_sasaki.cli.common import parse_code, run_async

    try:
        parse_code(args.code)
        if args.address:
            from p2p_sasaki.cli.join import parse_address

            parse_address(args.address)
    except CliError as error:
        say_error(str(error))
        return EXIT_USAGE
    return run_async(_join, args)


# -- the players' side -----------------------------------------------------------------------


def _identity(args: argparse.Namespace) -> tuple[Any, str, Path]:
    from p2p_sasaki.cli.common import data_dir, load_identity
    from p2p_sasaki.cli.name import player_name
    from p2p_sasaki.protocol.net.disk import check_directory

    directory = data_dir(args)
    check_directory(directory)
    return load_identity(directory), player_name(args, directory), directory


async def _host(args: argparse.Namespace) -> int:
    import trio

    from p2p_sasaki.cli.common import lan_address, parse_code
    from p2p_sasaki.protocol.net import MemberJoined, MemberLeft, TableCode, WrongCodeTried
    from p2p_sasaki.protocol.net.tournament import MIN_PLAYERS, TOURNAMENT_GAME, host_tournament

    identity, name, directory = _identity(args)
    code = parse_code(args.code) if getattr(args, "code", None) else TableCode.generate()
    bind = args.interface or ""
    join_listeners = await trio.open_tcp_listeners(args.port, host=bind or None)
    mesh_listeners = await trio.open_tcp_listeners(0, host=bind or None)
    join_port = join_listeners[0].socket.getsockname()[1]
    mesh_port = mesh_listeners[0].socket.getsockname()[1]
    address = f"{args.interface or lan_address()}:{join_port}"
    invitation = secrets.token_bytes(32)
    start = trio.Event()
    joined = [1]
    async with trio.open_nursery() as nursery:
        ad = None
        if not args.no_mdns:
            from p2p_sasaki.cli.common import interfaces

            ad = await nursery.start(_advertise, code.nameplate, join_port, interfaces(args), name, TOURNAMENT_GAME)
        print(f"Tournament code: {code}", flush=True)
        print(f"Join address (if multicast does not pass): {address}", flush=True)
        print(f"Players join with: sasaki tournament join {code}   or   sasaki tournament join {code} "
              f"--address {address}", flush=True)
        if args.ready_file:
            tmp = args.ready_file.with_suffix(".tmp")
            tmp.write_text(f"{code} {address}")
            tmp.rename(args.ready_file)
        if args.start_at is None:
            print(f"Press Enter to start once at least {MIN_PLAYERS} players are in (you count).", flush=True)
            nursery.start_soon(_start_on_enter, start, joined)

        def on_event(event: object) -> None:
            if isinstance(event, MemberJoined):
                joined[0] = event.seats_taken
                print(f"{event.member} joined ({event.seats_taken} players in).", flush=True)
                if args.start_at is not None and event.seats_taken >= args.start_at:
                    start.set()
            elif isinstance(event, MemberLeft):
                joined[0] = event.seats_taken
                print(f"{event.member} left ({event.seats_taken} players in).", flush=True)
            elif isinstance(event, WrongCodeTried):
                print(f"{event}.", flush=True)
            if ad is not None and isinstance(event, (MemberJoined, MemberLeft)):
                nursery.start_soon(functools.partial(ad.update, event.seats_taken))

        roster = await host_tournament(identity, code, mesh_port, join_listeners, start=start, invitation=invitation,
                                       name=name, mesh_host=bind, on_event=on_event)
        if ad is not None:
            await ad.update(len(roster.members), full=True)
        print(f"The tournament starts with {len(roster.members)} players.", flush=True)
        status = await _play(args, identity, roster, mesh_listeners, directory, invitation)
        nursery.cancel_scope.cancel()
    return status


async def _advertise(nameplate: str, port: int, where: Any, name: str, game: str, *,
                     task_status: Any) -> None:
    import trio

    from p2p_sasaki.protocol.net import advertise_table

    async with advertise_table(nameplate, port, interfaces=where, creator=name, game=game) as ad:
        task_status.started(ad)
        await trio.sleep_forever()


async def _start_on_enter(start: Any, joined: list[int]) -> None:
    from p2p_sasaki.cli.common import read_line
    from p2p_sasaki.protocol.net.tournament import MIN_PLAYERS

    while not start.is_set():
        await read_line()
        if joined[0] >= MIN_PLAYERS:
            start.set()
        else:
            print(f"Only {joined[0]} player(s) in: a tournament needs at least {MIN_PLAYERS}.", flush=True)


async def _join(args: argparse.Namespace) -> int:
    import trio

    from p2p_sasaki.cli.common import interfaces, parse_code
    from p2p_sasaki.cli.join import parse_address
    from p2p_sasaki.protocol.net import find_and_join_table, join_table

    identity, name, directory = _identity(args)
    code = parse_code(args.code)
    mesh_listeners = await trio.open_tcp_listeners(0, host=args.interface or None)
    mesh_port = mesh_listeners[0].socket.getsockname()[1]

    def admitted() -> None:
        if not args.quiet:
            print(f"You are in tournament {code.nameplate}; waiting for its host to start it ...", flush=True)

    if args.address:
        roster = await join_table(identity, code, parse_address(args.address), mesh_port,
                                  mesh_host=args.interface or "", name=name, on_admitted=admitted,
                                  handshake_timeout=10.0)
    else:
        roster = await find_and_join_table(identity, code, mesh_port, interfaces=interfaces(args),
                                           mesh_host=args.interface or "", name=name, on_admitted=admitted)
    return await _play(args, identity, roster, mesh_listeners, directory, None)


async def _play(args: argparse.Namespace, identity: Any, roster: Any, listeners: Any, directory: Path,
                invitation: bytes | None) -> int:
    import trio

    from p2p_sasaki.cli.standings import standings_json, standings_text
    from p2p_sasaki.protocol.net.mesh import Mesh
    from p2p_sasaki.protocol.net.tournament import (
        RosterSigned,
        RoundScored,
        RoundSeated,
        TournamentLeft,
        TournamentOptions,
        run_tournament,
    )
    from p2p_sasaki.protocol.tournament import TournamentError

    folder = args.dir if args.dir is not None else directory / "tournaments" / roster.table_id.hex()[:12]
    player, table_event, table_views = _player(args)
    names = roster.names
    planned = [args.rounds if invitation is not None else 0]
    page: list[Any] = []
    nursery: list[Any] = []

    def on_event(event: object) -> None:
        if isinstance(event, RosterSigned):
            planned[0] = event.roster.rounds
            title = f" '{event.roster.name}'" if event.roster.name else ""
            print(f"Every player signed the roster of tournament{title}: {len(names)} players, "
                  f"{event.roster.rounds} round(s). Folder: {folder}", flush=True)
            if not args.demo and nursery:   # the standings on a page of their own (cli/web/standings_page.py)
                from p2p_sasaki.cli.web.standings_page import StandingsPage

                page.append(StandingsPage(event.standings, event.roster.name or "Sasku tournament",
                                          event.roster.rounds))
                nursery[0].start_soon(_serve_page, page[0])
        elif isinstance(event, RoundSeated) and not args.quiet:
            tables = "; ".join(f"table {t + 1}: " + ", ".join(names[p] for p in seats)
                               for t, seats in enumerate(event.seating.tables))
            byes = f"; bye: {', '.join(names[p] for p in event.seating.byes)}" if event.seating.byes else ""
            print(f"Round {event.round}: {tables}{byes}. The board is being shuffled by every player ...",
                  flush=True)
        elif isinstance(event, RoundScored):
            print(standings_text(event.standings, planned[0]), flush=True)
            if page:
                page[0].show(event.standings)

    from p2p_sasaki.protocol.pace import NO_PACE

    pace = NO_PACE if args.demo else _people_pace()
    options = TournamentOptions(rounds=getattr(args, "rounds", 1), name=getattr(args, "tournament_name", ""),
                                pace=pace, directory=folder, connect_timeout=args.connect_timeout,
                                invitation=invitation, table_event=table_event, table_views=table_views,
                                standings_file=lambda standings: json.dumps(standings_json(standings),
                                                                            indent=1).encode())
    mesh = Mesh(identity, roster)
    try:
        async with trio.open_nursery() as links:
            nursery.append(links)
            await links.start(mesh.run, listeners)
            standings = await run_tournament(identity, roster, mesh, options, player=lambda round_no: player,
                                             on_event=on_event, transport_running=True)
            mesh.close()
            links.cancel_scope.cancel()
    except TournamentLeft:
        print("You left the tournament; the others go on without you (you score 0 for this round).", flush=True)
        return 0
    except TournamentError as error:
        say_error(str(error))
        return EXIT_AUDIT
    print(f"The tournament is over. Its folder: {folder} (check it with: sasaki audit {folder})", flush=True)
    del standings
    return 0


async def _serve_page(page: Any) -> None:
    import trio

    async with trio.open_nursery() as serving:
        url = await serving.start(page.serve)
        print(f"The standings, on a page of their own: {url} (it reloads by itself).", flush=True)


def _people_pace() -> Any:
    """A table of people's pacing (protocol/sasku_game.py's fair pace: what 'sasaki host' uses
    by default), the same for every table of the tournament."""
    from p2p_sasaki.protocol.sasku_game import FAIR_PACE

    return FAIR_PACE


def _player(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """(player, table event hook, views) for this peer: a demo's bot, or the person here."""
    if args.demo:
        import random

        from p2p_sasaki.protocol.net.asking import BotPlayer
        from p2p_sasaki.protocol.sasku_game import TableBot
        from p2p_sasaki.sasku.bots import HeuristicBot

        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
        return BotPlayer(TableBot(HeuristicBot(random.Random(seed)))), None, None
    from p2p_sasaki.cli.common import make_player, make_ui

    args.game = "sasku"
    person = argparse.Namespace(**vars(args))
    person.bot = False
    player = make_player(person)
    ui = make_ui(person, player)
    if ui is None:
        return player, None, None
    return player, ui.event, ui.run


# -- the demo ------------------------------------------------------------------------------


def run_demo(args: argparse.Namespace) -> int:
    if not 4 <= args.players <= MAX_DEMO_PLAYERS:
        say_error(f"a demo tournament has 4 to {MAX_DEMO_PLAYERS} players, not {args.players}")
        return EXIT_USAGE
    if args.rounds > 255:
        say_error("a tournament has at most 255 rounds")
        return EXIT_USAGE
    folder = args.dir if args.dir is not None else Path(tempfile.mkdtemp(prefix="sasaki-tournament-"))
    if folder.exists() and any(folder.iterdir()):
        say_error(f"{folder} is not empty: give the demo a new folder")
        return EXIT_USAGE
    folder.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="sasaki-tournament-players-"))
    seed = args.seed if args.seed is not None else 1
    started = time.monotonic()
    processes: list[subprocess.Popen[bytes]] = []
    logs = []
    try:
        ready = work / "ready"
        base = [sys.executable, "-P", "-m", "p2p_sasaki", "tournament"]
        common = ["--demo", "--interface", "127.0.0.1"]
        host = subprocess.Popen(base + ["host", "--rounds", str(args.rounds), "--no-mdns", "--start-at",
                                        str(args.players), "--ready-file", str(ready), "--dir", str(folder),
                                        "--data-dir", str(work / "p1"), "--name", "Bot 1", "--seed", str(seed),
                                        *common], stdin=subprocess.DEVNULL)
        processes.append(host)
        deadline = time.monotonic() + 60
        while not ready.exists():
            if host.poll() is not None or time.monotonic() > deadline:
                say_error("the demo's host did not start")
                return EXIT_AUDIT
            time.sleep(0.05)
        code, address = ready.read_text().split()
        print(f"Host started (code {code}); starting {args.players - 1} more bot players on 127.0.0.1 ...",
              flush=True)
        for number in range(2, args.players + 1):
            log = open(work / f"p{number}.log", "wb")   # noqa: SIM115 (closed below)
            logs.append(log)
            processes.append(subprocess.Popen(
                base + ["join", code, "--address", address, "--data-dir", str(work / f"p{number}"),
                        "--name", f"Bot {number}", "--seed", str(seed * 100 + number),
                        "--dir", str(work / f"p{number}" / "tournament"), "--quiet", *common],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT))
        statuses = [process.wait() for process in processes]
    except KeyboardInterrupt:
        for process in processes:
            process.kill()
        say_error("interrupted")
        return 130
    finally:
        for log in logs:
            log.close()
    wall = time.monotonic() - started
    cpu = os.times()
    if any(statuses):
        failed = [n + 1 for n, status in enumerate(statuses) if status]
        say_error(f"player(s) {', '.join(map(str, failed))} stopped with an error (logs in {work})")
        return EXIT_AUDIT
    from p2p_sasaki.cli.tournament_audit import audit_tournament, describe_tournament

    print(f"The audit of {folder}:", flush=True)
    audit = audit_tournament(folder)
    print(describe_tournament(audit), flush=True)
    print(f"{args.players} players, {args.rounds} round(s) in {wall:.1f} s (CPU of the players: "
          f"{cpu.children_user + cpu.children_system:.1f} s). Folder: {folder}", flush=True)
    return 0 if audit.ok else EXIT_AUDIT
