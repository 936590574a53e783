"""What ``sasaki host/join/play/tables/demo`` share: options, the data directory,
the identity key, the table config, starting bot peers, and running a peer.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import trio

from p2p_sasaki.bots import BOTS, make_bot
from p2p_sasaki.options import LEAD_CARDS, RUNNING_MODES, TableOptions, resolve_lead_card
from p2p_sasaki.protocol.net import ALL_INTERFACES, Identity, TableRoster
from p2p_sasaki.protocol.net.table import BotPlayer, TableResult, run_table
from p2p_sasaki.protocol.session import TableConfig
from p2p_sasaki.search import DEFAULT_LEVEL, LEVELS

from p2p_sasaki.cli.render import places_text


# -- the table config ----------------------------------------------------------------



def encode_config(config: Any) -> bytes:
    o = config.options
    return json.dumps({"hands": config.hands, "lead_card": o.lead_card,
                       "lead_must_contain_3": o.lead_must_contain_3, "running": o.running,
                       "proofs": config.proofs, "shuffle_rounds": config.shuffle_rounds}).encode()


def decode_config(data: bytes) -> Any:
    m = json.loads(data)
    return TableConfig(hands=int(m["hands"]),
                       options=TableOptions(lead_card=m["lead_card"], lead_must_contain_3=bool(m["lead_must_contain_3"]),
                                            running=m["running"]),
                       proofs=bool(m["proofs"]), shuffle_rounds=int(m["shuffle_rounds"]))


def config_from_args(args: argparse.Namespace) -> Any:
    lead = str(resolve_lead_card(args.lead, datetime.datetime.now().hour))
    return TableConfig(hands=args.hands,
                       options=TableOptions(lead_card=lead, lead_must_contain_3=args.lead_must_contain_3,
                                            running=args.running),
                       proofs=not args.no_proofs, shuffle_rounds=args.shuffle_rounds)


# -- options ---------------------------------------------------------------------------

def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_table_options(parser: argparse.ArgumentParser, creating_only: bool = False) -> None:
    note = " (only when you create the table)" if creating_only else ""
    group = parser.add_argument_group("table options" + note)
    group.add_argument("--hands", type=positive, default=2, metavar="N", help="hands in the match (default 2)")
    group.add_argument("--lead", choices=LEAD_CARDS, default="auto",
                       help="the opening 3: 3H, 3S, or auto = 3H from 06:00 to 18:00 by the creator's clock, "
                            "else 3S (default auto)")
    group.add_argument("--lead-must-contain-3", action="store_true",
                       help="the first play of a hand must contain the opening 3")
    group.add_argument("--running", choices=RUNNING_MODES, default="before_first_play",
                       help="when a red-ten holder may run: in a window before the first play, or at the "
                            "start of any own turn (default before_first_play)")
    group.add_argument("--bots", type=int, default=0, metavar="N", choices=range(0, 4),
                       help="fill N of the three other seats with bots (0-3): each is a 'sasaki join "
                            "--bot' process on this machine, its identity under DATA_DIR/bots/")
    group.add_argument("--shuffle-rounds", type=positive, default=64, metavar="K",
                       help="rounds of each shuffle proof (default 64: a cheating shuffler passes with "
                            "chance 2^-K); fewer are faster and weaker, for slow machines and tests")
    group.add_argument("--no-proofs", action="store_true",
                       help="skip the shuffle proofs (strips, openings and the end-of-hand key check "
                            "still catch every cheat, but later)")


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "p2p-sasaki"


def add_peer_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("this peer")
    group.add_argument("--data-dir", type=Path, default=None, metavar="DIR",
                       help="where your identity key and transcripts live (default "
                            "$XDG_DATA_HOME/p2p-sasaki, else ~/.local/share/p2p-sasaki)")
    group.add_argument("--interface", metavar="ADDRESS", default=None,
                       help="use only the network interface with this IPv4 address for mDNS and "
                            "connections (default: all; 127.0.0.1 keeps everything on this machine)")
    group.add_argument("--bot", action="store_true",
                       help="let a bot play your seat (a bot peer; no questions asked)")
    group.add_argument("--quiet", action="store_true", help="print only the result")
    group.add_argument("--seed", type=int, default=None, help="seed of the bot's choices (not of the deal)")
    group.add_argument("--bot-kind", choices=tuple(BOTS), default=None,
                       help="which bot plays for --bot and --bots: random, heuristic (a casual player's "
                            "rules) or search (Monte Carlo search over the hidden cards; default for "
                            "--bots; --bot defaults to heuristic)")
    levels = ", ".join(f"{level}: {count}" for level, count in LEVELS.items())
    group.add_argument("--level", type=int, choices=sorted(LEVELS), default=DEFAULT_LEVEL, metavar="L",
                       help=f"strength of a search bot, as rollouts per decision ({levels}; default "
                            f"{DEFAULT_LEVEL})")
    group.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS",
                       help="how long you have to claim a run, Stop, chata or kkojda before it declines "
                            "(default 20; chata/kkojda get half)")
    group.add_argument("--transcript", type=Path, default=None, help=argparse.SUPPRESS)


def interfaces(args: argparse.Namespace) -> Any:
    return [args.interface] if args.interface else ALL_INTERFACES


def bind_host(args: argparse.Namespace) -> str:
    return args.interface or "0.0.0.0"


def data_dir(args: argparse.Namespace) -> Path:
    path = args.data_dir or default_data_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path


def load_identity(directory: Path) -> Identity:
    """The identity seed in ``DIR/identity.key`` (32 bytes, mode 0600), created once."""
    path = directory / "identity.key"
    if path.exists():
        seed = path.read_bytes()
        if len(seed) != 32:
            raise CliError(f"{path} is not an identity key (32 bytes); move it away to get a new identity")
        return Identity(seed)
    identity = Identity.generate()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(identity.secret)
        handle.flush()
        os.fsync(handle.fileno())
    return identity


def transcript_path(args: argparse.Namespace, directory: Path, roster: TableRoster) -> Path:
    if args.transcript:
        return args.transcript
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return directory / "transcripts" / f"{stamp}-{roster.table_id.hex()[:8]}.sasaki"


class CliError(Exception):
    """One sentence for the person; the command exits with status 1."""


def parse_code(text: str) -> Any:
    """The :class:`TableCode` in ``text``, or a :class:`CliError` saying what is wrong with it."""
    from p2p_sasaki.protocol.net import InvalidCodeError, TableCode

    try:
        return TableCode.parse(text)
    except InvalidCodeError as error:
        message = str(error)
        if "is not a table code" in message:
            raise CliError(message) from None
        raise CliError(f"{text!r} is not a table code: {message}") from None


# -- bots -----------------------------------------------------------------------------

def spawn_bot_peers(count: int, code: str, address: str, directory: Path, interface: str | None,
                    quiet_log: Path | None = None, kind: str = "search",
                    level: int = DEFAULT_LEVEL) -> list[subprocess.Popen[bytes]]:
    """Start ``count`` bot peers (``kind`` at ``level``) as separate processes that join
    ``code`` at ``address``."""
    processes = []
    for number in range(count):
        bot_dir = directory / "bots" / str(number + 1)
        argv = [sys.executable, "-P", "-m", "p2p_sasaki", "join", code, "--address", address, "--bot", "--quiet",
                "--data-dir", str(bot_dir), "--bot-kind", kind, "--level", str(level)]
        if interface:
            # Same interface as the creator. Without one, a bot's mesh listens on every
            # interface and the creator records it at the address it came from (the LAN
            # address), so players on other machines can reach it; 127.0.0.1 would not do.
            argv += ["--interface", interface]
        log = open(quiet_log.with_name(f"{quiet_log.stem}-bot{number + 1}.log"), "wb") if quiet_log else subprocess.DEVNULL
        processes.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                          stdout=log, stderr=subprocess.STDOUT))
    return processes


def lan_address() -> str:
    from p2p_sasaki.protocol.net.discovery import _local_ipv4_addresses

    addresses = _local_ipv4_addresses()
    return addresses[0] if addresses else "127.0.0.1"


def make_player(args: argparse.Namespace) -> Any:
    if args.bot:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
        return BotPlayer(make_bot(args.bot_kind or "heuristic", random.Random(seed), args.level))
    from p2p_sasaki.cli.tui import HumanPlayer

    return HumanPlayer(timeout=args.timeout)


def make_ui(args: argparse.Namespace, player: Any) -> Any:
    from p2p_sasaki.cli.tui import Narrator

    if args.quiet:
        return None
    return getattr(player, "narrator", None) or Narrator()


async def play_roster(args: argparse.Namespace, identity: Identity, roster: TableRoster,
                      listeners: Any, config: Any, player: Any, ui: Any) -> TableResult:
    directory = data_dir(args)
    path = transcript_path(args, directory, roster)
    if ui is not None:
        ui.say(f"The table is full. Connecting to the other three players; transcript: {path}")
    result = await run_table(identity, roster, config, player=player, transcript_path=path,
                             listeners=listeners, on_event=ui.event if ui is not None else None,
                             config_codec=(encode_config, decode_config))
    return result


def report(result: TableResult, quiet: bool) -> int:
    if result.blame is not None:
        seat = "nobody" if result.blame.seat is None else f"S{result.blame.seat}"
        print(f"The table stopped: {seat} is blamed: {result.blame.reason}.")
        print(f"Transcript: {result.transcript}")
        return 1
    print(f"Match over. Totals: {places_text(result.totals)}.")
    print(f"Transcript: {result.transcript} (check it with: sasaki audit {result.transcript})")
    return 0 if result.finished else 1


def run_async(function: Any, *args: Any) -> int:
    """Run an async command; one-sentence errors for what a person can fix."""
    from p2p_sasaki.protocol.net import JoinError

    try:
        return trio.run(function, *args)
    except CliError as error:
        print(f"sasaki: {error}.", file=sys.stderr)
        return 1
    except JoinError as error:
        print(f"sasaki: {error}.", file=sys.stderr)
        return 1
    except trio.TooSlowError:
        print("sasaki: the other players could not be reached in time.", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"sasaki: network error: {error.strerror or error}.", file=sys.stderr)
        return 1
