"""What ``sasaki host/join/play/tables/demo`` share: options, the data directory,
the identity key, the table config, starting bot peers, a match's report, and how a
command ends (its exit status and closing sentence). The matches themselves:
cli/matches.py (protocol/net/match.py runs them).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import logging
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from p2p_sasaki.cli.render import places_text
from p2p_sasaki.protocol.config import Pace, TableConfig
from p2p_sasaki.protocol.net import ALL_INTERFACES, Identity
from p2p_sasaki.protocol.net.disk import DiskError, check_directory, repair_tail
from p2p_sasaki.protocol.net.match import MatchError
from p2p_sasaki.protocol.net.match import decode_config as decode_config  # the creator's options frame
from p2p_sasaki.protocol.net.match import encode_config as encode_config
from p2p_sasaki.protocol.net.table import BotPlayer, PeersUnreachable, TableResult
from p2p_sasaki.protocol.sasaki_game import CLAIM_SECONDS, TURN_SECONDS, WINDOW_SECONDS, SasakiGame, sasaki_pace
from p2p_sasaki.sasaki.bots import BOTS, make_bot
from p2p_sasaki.sasaki.options import LEAD_CARDS, RUNNING_MODES, TableOptions, resolve_lead_card
from p2p_sasaki.sasaki.search import DEFAULT_LEVEL, LEVELS

log = logging.getLogger(__name__)


# -- the table config ----------------------------------------------------------------


def config_from_args(args: argparse.Namespace) -> Any:
    if getattr(args, "game", "sasaki") == "sasku":
        return TableConfig(hands=args.hands or SASKU_HANDS, game=sasku_game_from_args(args), proofs=not args.no_proofs,
                           pace=sasku_pace_from_args(args))
    lead = str(resolve_lead_card(args.lead, datetime.datetime.now().hour))
    return TableConfig(hands=args.hands or 2,
                       game=SasakiGame(TableOptions(lead_card=lead, lead_must_contain_3=args.lead_must_contain_3,
                                            running=args.running)),
                       proofs=not args.no_proofs, pace=pace_from_args(args))


def pace_from_args(args: argparse.Namespace) -> Pace:
    """The fair windows' table options (docs/protocol.md, "Window pacing") from the command
    line; the answer deadline defaults to this peer's ``--timeout``."""
    answer = args.answer_deadline if args.answer_deadline is not None else getattr(args, "timeout", 30.0)
    window, claim, turn = (0.0, 0.0, 0.0) if getattr(args, "fast", False) else \
        (args.window, args.claim_window, args.bot_turn)
    try:
        return sasaki_pace(window=window, claim=claim, turn=turn,
                           answer=max(answer, window, claim, turn), stall=args.stall)
    except ValueError as exc:
        raise SystemExit(f"sasaki: {exc}") from exc


def sasku_game_from_args(args: argparse.Namespace) -> Any:
    """Sasku's game with ``--target`` and ``--min-bid`` (docs/rules-sasku.md)."""
    from p2p_sasaki.protocol.sasku_game import SaskuGame
    from p2p_sasaki.sasku.options import SaskuOptions

    try:
        return SaskuGame(SaskuOptions(min_bid=args.min_bid, target=args.target))
    except ValueError as exc:
        raise SystemExit(f"sasaki: {exc}") from exc


def sasku_pace_from_args(args: argparse.Namespace) -> Pace:
    """Sasku's pacing (protocol/sasku_game.py): ``--window`` for the auction's decisions
    (bid, take or refuse, return, trump), ``--bot-turn`` for a card to the trick."""
    from p2p_sasaki.protocol.sasku_game import sasku_pace

    answer = args.answer_deadline if args.answer_deadline is not None else getattr(args, "timeout", 30.0)
    bid, turn = (0.0, 0.0) if getattr(args, "fast", False) else (args.window, args.bot_turn)
    try:
        return sasku_pace(bid=bid, turn=turn, answer=max(answer, bid, turn), stall=args.stall)
    except ValueError as exc:
        raise SystemExit(f"sasaki: {exc}") from exc


SASKU_HANDS = 60
"""A Sasku match ends when a pair reaches the target; ``--hands`` is only a cap (this default)."""


FAST_WITH_A_PERSON = ("--fast is for a table of bots only (a person's answers would then leave as soon as "
                      "given, and their timing would tell what they hold): add --bot, or leave --fast out")


def refuse_fast_with_person(args: argparse.Namespace) -> bool:
    """Say :data:`FAST_WITH_A_PERSON` and return True when ``--fast`` is asked where a person
    plays this seat (``sasaki host`` / ``play`` without ``--bot``)."""
    if getattr(args, "fast", False) and not getattr(args, "bot", False):
        say_error(FAST_WITH_A_PERSON)
        return True
    return False


# -- options ---------------------------------------------------------------------------

def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def seconds(text: str) -> float:
    """A non-negative number of seconds (an argparse type: a usage error, not a traceback)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text}")
    return value


def heartbeat_seconds(text: str) -> float:
    value = float(text)
    if not 2 <= value < float("inf"):   # the others send a keep-alive every second (transport.py)
        raise argparse.ArgumentTypeError(f"must be at least 2 seconds, not {text}")
    return value


def add_table_options(parser: argparse.ArgumentParser, creating_only: bool = False) -> None:
    note = " (only when you create the table)" if creating_only else ""
    group = parser.add_argument_group("table options" + note)
    group.add_argument("--game", choices=("sasaki", "sasku"), default="sasaki",
                       help="the game: sasaki (44A, the default) or sasku (four players in two pairs, "
                            "docs/rules-sasku.md); joiners get the creator's")
    group.add_argument("--hands", type=positive, default=None, metavar="N",
                       help=f"hands in the match (default 2; sasku: a cap, default {SASKU_HANDS}, the match "
                            "ends when a pair reaches --target)")
    group.add_argument("--target", type=positive, default=12, metavar="N",
                       help="sasku: the game points that win the match (default 12)")
    group.add_argument("--min-bid", type=positive, default=5, metavar="N",
                       help="sasku: the smallest bid (default 5)")
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
    group.add_argument("--no-proofs", action="store_true",
                       help="skip the shuffle arguments (strips, openings and the end-of-hand key check "
                            "still catch every cheat, but later)")
    group.add_argument("--window", type=float, default=WINDOW_SECONDS, metavar="SECONDS",
                       help="the shot clock: every answer to a run, expose, Stop or lead window goes out "
                            "exactly this long after the window opens, whatever the seat holds; a person "
                            "undecided by then declines (default 4, at most 60)")
    group.add_argument("--claim-window", type=float, default=CLAIM_SECONDS, metavar="SECONDS",
                       help="the same for chata and kkojda windows (default 3)")
    group.add_argument("--bot-turn", type=float, default=TURN_SECONDS, metavar="SECONDS",
                       help="every play or pass on a turn, a person's or a bot's, forced or not, goes out "
                            "no earlier than this long after the turn opens (default 1)")
    group.add_argument("--fast", action="store_true",
                       help="every delay 0 (--window, --claim-window and --bot-turn): for a table of bots "
                            "only (refused where a person plays this seat)")
    group.add_argument("--answer-deadline", type=float, default=None, metavar="SECONDS",
                       help="how long a person has to claim in a window before it declines, for every "
                            "seat (default: the creator's --timeout, 30)")
    group.add_argument("--stall", type=float, default=120.0, metavar="SECONDS",
                       help="how long the table waits for a silent seat before it may be abandoned "
                            "(default 120)")


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "p2p-sasaki"


def add_peer_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("this peer")
    add_data_dir_option(group)
    add_name_option(group)
    group.add_argument("--interface", metavar="ADDRESS", default=None,
                       help="use only the network interface with this IPv4 address for mDNS and "
                            "connections (default: all; 127.0.0.1 keeps everything on this machine)")
    group.add_argument("--bot", action="store_true",
                       help="let a bot play your seat (a bot peer; no questions asked)")
    group.add_argument("--quiet", action="store_true", help="print only the result")
    group.add_argument("--new", action="store_true",
                       help="start a new table even if DATA_DIR holds an unfinished one (which is otherwise "
                            "resumed; see 'sasaki resume')")
    group.add_argument("--seed", type=int, default=None, help="seed of the bot's choices (not of the deal)")
    group.add_argument("--next-match", choices=("ask", "yes", "no"), default=None,
                       help="at the end of a match, a next match with the same four players (all must "
                            "agree): ask (a person, at the terminal and on the page: the default), yes, or "
                            "no (a --bot's default)")
    group.add_argument("--bot-kind", choices=tuple(BOTS), default=None,
                       help="which bot plays for --bot and --bots: random, heuristic (a casual player's "
                            "rules) or search (Monte Carlo search over the hidden cards; default for "
                            "--bots; --bot defaults to heuristic)")
    levels = ", ".join(f"{level}: {count}" for level, count in LEVELS.items())
    group.add_argument("--level", type=int, choices=sorted(LEVELS), default=DEFAULT_LEVEL, metavar="L",
                       help=f"strength of a search bot, as rollouts per decision ({levels}; default "
                            f"{DEFAULT_LEVEL})")
    group.add_argument("--timeout", type=seconds, default=30.0, metavar="SECONDS",
                       help="how long you have to claim a run, Stop, chata or kkojda before it declines "
                            "(default 30)")
    group.add_argument("--proof-workers", type=int, default=default_proof_workers(), metavar="N",
                       help="processes that make and check the shuffle proofs side by side (default: "
                            f"${PROOF_WORKERS_ENV} where it is set, else one per core when the machine has "
                            "several, else 0: in this process)")
    group.add_argument("--heartbeat", type=heartbeat_seconds, default=5.0, metavar="SECONDS",
                       help="a player from whom nothing arrives for this long (every peer sends a "
                            "keep-alive each second) is shown offline; so are you, when nothing arrives "
                            "from anyone (default 5, at least 2; affects only your screen)"),
    add_web_options(group)
    group.add_argument("--transcript", type=Path, default=None, help=argparse.SUPPRESS)
    # Tests: how long the mesh may take to connect before the match is given up (default 60).
    group.add_argument("--connect-timeout", type=float, default=60.0, help=argparse.SUPPRESS)
    # Tests and screenshots: this peer's session randomness (seat nonce, shuffle, keys) from a
    # seed, so four peers with fixed identities get the same deal every time. Never for play.
    group.add_argument("--deal-seed", type=int, default=None, help=argparse.SUPPRESS)


def add_data_dir_option(group: Any) -> None:
    group.add_argument("--data-dir", type=Path, default=None, metavar="DIR",
                       help="where your identity key, name and transcripts live (default "
                            "$XDG_DATA_HOME/p2p-sasaki, else ~/.local/share/p2p-sasaki)")


def add_name_option(group: Any) -> None:
    group.add_argument("--name", default=None, metavar="NAME",
                       help="play this table under NAME (1-24 printable characters) instead of the name "
                            "kept in DATA_DIR/name ('sasaki name' shows and changes that one)")


PROOF_WORKERS_ENV = "SASAKI_PROOF_WORKERS"


def default_proof_workers() -> int:
    """``--proof-workers``' default: the whole number in the environment variable
    SASAKI_PROOF_WORKERS where it is set (0: prove in this process), else one proof worker per
    core on a machine with several cores and none on a single core."""
    value = os.environ.get(PROOF_WORKERS_ENV, "").strip()
    if value.isdigit():
        return int(value)
    cores = os.cpu_count() or 1
    return cores if cores > 1 else 0


def add_web_options(group: Any) -> None:
    group.add_argument("--web", action="store_true",
                       help="also show your table as a page in your browser (served on 127.0.0.1 only, "
                            "behind a secret address that is printed)")
    group.add_argument("--no-browser", action="store_true",
                       help="with --web: print the page's address but do not open a browser")
    group.add_argument("--web-linger", type=float, default=600.0, metavar="SECONDS",
                       help="with --web: after the match, keep the page (verdict, transcript download) for "
                            "this long unless you press 'Close table' (default 600)")


def interfaces(args: argparse.Namespace) -> Any:
    return [args.interface] if args.interface else ALL_INTERFACES


def bind_host(args: argparse.Namespace) -> str:
    return args.interface or "0.0.0.0"


def data_dir(args: argparse.Namespace) -> Path:
    path: Path = args.data_dir or default_data_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DiskError(error.errno, f"disk error: cannot create {path}: {error.strerror or error}") from error
    return path


def prepare_directories(args: argparse.Namespace) -> Path:
    """The data directory, checked before a seat is taken: it and the transcript directory
    can be written and have some free space (a :class:`DiskError` otherwise), and a torn last
    record left in a transcript there by a crash is cut back, with a message."""
    directory = data_dir(args)
    transcripts = Path(args.transcript).parent if args.transcript else directory / "transcripts"
    for path in dict.fromkeys((directory, transcripts)):
        check_directory(path)
    for path in sorted(transcripts.glob("*.sasaki")):
        torn = repair_tail(path)
        if torn:
            print(f"{path} ended in a torn record ({torn} bytes, from a crash or a full disk); "
                  "it was cut back to its last complete record.", file=sys.stderr, flush=True)
    return directory


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
                    level: int = DEFAULT_LEVEL, next_match: str = "no") -> list[subprocess.Popen[bytes]]:
    """Start ``count`` bot peers (``kind`` at ``level``) as separate processes that join
    ``code`` at ``address``, named "Bot 2", "Bot 3", "Bot 4" in the order they are started
    (the creator is player 1)."""
    processes = []
    for number in range(count):
        bot_dir = directory / "bots" / str(number + 1)
        argv = [sys.executable, "-P", "-m", "p2p_sasaki", "join", "--new", code, "--address", address, "--bot",
                "--quiet", "--data-dir", str(bot_dir), "--name", f"Bot {number + 2}", "--bot-kind", kind,
                "--level", str(level),
                "--proof-workers", "0",  # the bots share this machine's cores with the creator's peer
                "--next-match", next_match]
        if interface:
            # Same interface as the creator. Without one, a bot's mesh listens on every
            # interface and the creator records it at the address it came from (the LAN
            # address), so players on other machines can reach it; 127.0.0.1 would not do.
            argv += ["--interface", interface]
        log = (open(quiet_log.with_name(f"{quiet_log.stem}-bot{number + 1}.log"), "wb") if quiet_log
               else subprocess.DEVNULL)
        processes.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                          stdout=log, stderr=subprocess.STDOUT))
    return processes


def lan_address() -> str:
    from p2p_sasaki.protocol.net.discovery import _local_ipv4_addresses

    addresses = _local_ipv4_addresses()
    return addresses[0] if addresses else "127.0.0.1"


class GameBot:
    """A bot for whichever game the table plays (a joiner learns it from the creator's
    options): Sasaki's bot of ``kind``, or Sasku's (p2p_sasaki.sasku.bots, behind the
    adapter's TableBot) once it is shown a Sasku deal. A search bot ``thinks``: the driver
    gives it a time budget (``seconds`` on ``clock``), passed on to the game's bot."""

    def __init__(self, kind: str, seed: int, level: int = DEFAULT_LEVEL) -> None:
        self.kind, self.seed, self.level = kind, seed, level
        self.thinks = kind == "search"
        self._sasaki: Any = None
        self._sasku: Any = None

    def bot_for(self, view: Any) -> Any:
        """The game's own bot for ``view`` (a Sasku deal, else a Sasaki seat view), made once."""
        from p2p_sasaki.sasku.deal import Deal

        if isinstance(view, Deal):
            if self._sasku is None:
                from p2p_sasaki.protocol.sasku_game import TableBot
                from p2p_sasaki.sasku.bots import make_bot as make_sasku_bot

                self._sasku = TableBot(make_sasku_bot(self.kind, random.Random(self.seed), self.level))
            return self._sasku
        if self._sasaki is None:
            self._sasaki = make_bot(self.kind, random.Random(self.seed), self.level)
        return self._sasaki

    def choose(self, view: Any, legal: Any, **budget: Any) -> Any:
        return self.bot_for(view).choose(view, legal, **budget)


def make_player(args: argparse.Namespace) -> Any:
    if args.bot:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
        return BotPlayer(GameBot(args.bot_kind or "heuristic", seed, args.level))
    from p2p_sasaki.cli.presenter import Presenter
    from p2p_sasaki.cli.tui import HumanPlayer

    # The creator's game from the start (a page opened before the seats shows that game's page);
    # a joiner's presenter learns the creator's game with the table's first event.
    presenter = Presenter(timeout=args.timeout, game=getattr(args, "game", None))
    return HumanPlayer(timeout=args.timeout, presenter=presenter, wait_delay=WAIT_DELAY)


WAIT_DELAY = 2.0   # seconds: a person's terminal tells only the waits that last (tui.Narrator)


def make_ui(args: argparse.Namespace, player: Any) -> Any:
    from p2p_sasaki.cli.tui import Narrator

    narrator = getattr(player, "narrator", None)
    if args.quiet:
        # A person's page still needs the events; the terminal stays silent.
        if narrator is not None:
            narrator.show_waiting = False
            narrator.presenter.on_note.clear()
            return narrator
        return None
    if narrator is not None:
        return narrator
    from p2p_sasaki.cli.presenter import Presenter

    return Narrator(Presenter(person=False), show_waiting=False)    # a bot's log: the plays, not the waits


@asynccontextmanager
async def table_page(args: argparse.Namespace, player: Any) -> AsyncIterator[Any]:
    """With ``--web`` and a person playing: serve their table page while the body runs, then
    keep it (verdict, transcript) until 'Close table' or ``--web-linger`` seconds."""
    presenter = getattr(player, "presenter", None)
    if not getattr(args, "web", False) or presenter is None:
        yield None
        return
    from p2p_sasaki.cli.web.server import WebTable

    web = WebTable(presenter)
    async with trio.open_nursery() as nursery:
        url = await nursery.start(web.serve)
        print(f"Your table in the browser: {url}", flush=True)
        if not args.no_browser:
            nursery.start_soon(trio.to_thread.run_sync, _open_browser, url)
        yield web
        if presenter.verdict is not None:
            print("The page stays open until you press 'Close table' there (or Ctrl-C).", flush=True)
            with trio.move_on_after(args.web_linger):
                await web.left.wait()
        nursery.cancel_scope.cancel()


def _open_browser(url: str) -> None:
    import webbrowser

    webbrowser.open(url)


def member_nonce(args: argparse.Namespace, identity: Identity) -> bytes | None:
    """This member's nonce for the table id: fresh (None: the join draws it) except with the
    tests' --deal-seed, where it is derived from the seed and the key, so a test deal repeats."""
    if getattr(args, "deal_seed", None) is None:
        return None
    return hashlib.sha256(b"sasaki test member nonce %d " % args.deal_seed + identity.public_key).digest()


def report(result: TableResult, quiet: bool, going_on: bool = False) -> int:
    """The match's end on stdout: abandoned hands, totals, the transcript; ``going_on``: the
    match goes on at a new table with a bot in the empty seat, so these are totals so far."""
    if result.blame is not None:
        seat = "nobody" if result.blame.seat is None else f"S{result.blame.seat}"
        print(f"The table stopped: {seat} is blamed: {result.blame.reason}.")
        print(f"Transcript: {result.transcript}")
        return 1
    for event in result.abandoned:
        gone = ", ".join(f"S{s}" for s in event.left)
        print(f"Hand {event.hand} was abandoned: {gone} left ({event.reason}); nobody is blamed.")
    totals = places_text(result.totals)
    if getattr(getattr(result.config, "game", None), "name", None) == "sasku":   # partners share a score
        from p2p_sasaki.cli.sasku_text import totals_text

        totals = totals_text(result.totals)
    print(f"Totals so far: {totals}; the match goes on at a new table." if going_on
          else f"Match over. Totals: {totals}.")
    print(f"Transcript: {result.transcript} (check it with: sasaki audit {result.transcript})")
    return 0 if result.finished else 1


EXIT_FINISHED, EXIT_FAILED, EXIT_USAGE, EXIT_DISK, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
"""The exit statuses of every command (docs/usage.md, "Exit statuses")."""

terminal_closed = False
"""Set by the SIGHUP handler (cli/main.py): the interruption was a closed terminal."""

demo_peer = False
"""Set for ``sasaki demo``'s own peer (``host --demo``): leaving ends the demo, and nothing
resumes it (the same command starts a new one), so the closing sentence says so."""


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def explain(error: BaseException) -> tuple[int, str] | None:
    """The exit status and the one sentence for an error that ended a command (a group is
    judged by its most telling member); None for a bug, which keeps its traceback."""
    from p2p_sasaki.cli.tui import InputEnded, LeftTable
    from p2p_sasaki.protocol.net import JoinError

    leaves = [leaf for leaf in _leaves(error) if not isinstance(leaf, trio.Cancelled)]
    if not leaves:
        return None
    resumable = ("nothing more was sent; the demo ends here ('sasaki demo' starts a new one)" if demo_peer
                 else "nothing more was sent (a match under way can be resumed: run the same command again)")
    for leaf in leaves:
        if isinstance(leaf, KeyboardInterrupt):
            if terminal_closed:
                return EXIT_INTERRUPTED, f"the terminal was closed; {resumable}."
            return EXIT_INTERRUPTED, f"interrupted; {resumable}."
    for leaf in leaves:
        if isinstance(leaf, InputEnded):
            return EXIT_INTERRUPTED, f"the input ended (Ctrl-D); {resumable}."
    for leaf in leaves:
        if isinstance(leaf, LeftTable):
            return EXIT_FAILED, ("you left the table; the others were told at once and may abandon this hand "
                                 "(your transcript stops here).")
    for leaf in leaves:
        if isinstance(leaf, DiskError):
            return EXIT_DISK, f"{leaf.strerror}; free some space or choose another --data-dir."
    for leaf in leaves:
        if isinstance(leaf, (CliError, JoinError, MatchError)):
            return EXIT_FAILED, f"{leaf}."
    for leaf in leaves:
        if isinstance(leaf, PeersUnreachable):
            return EXIT_FAILED, (f"{leaf}, so the match could not start; nothing was recorded. Start a new "
                                 "table (or wait for that player and run the same command again).")
        if isinstance(leaf, trio.TooSlowError):
            return EXIT_FAILED, ("the other players could not be reached in time; check that everyone is on "
                                 "the same network (or use --address), then start a new table.")
    for leaf in leaves:
        if isinstance(leaf, OSError):
            return EXIT_FAILED, f"network error: {leaf.strerror or leaf}."
    return None


async def read_line(prompt: str = "") -> str:
    """A line typed on stdin ("" at end of input), read in a thread so that Ctrl-C still
    ends the command at once (:func:`run_async`); ``prompt`` is printed first."""
    if prompt:
        print(prompt, end="", flush=True)
    return await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)


def say_error(sentence: str) -> None:
    """Print the closing sentence; a closed terminal (SIGHUP) cannot take it, which is fine."""
    try:
        fresh = "\n" if sys.stderr.isatty() else ""    # after the terminal's echo of ^C or ^D
        print(f"{fresh}sasaki: {sentence.rstrip('.')}.", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def run_async(function: Any, *args: Any) -> int:
    """Run an async command; one sentence and a documented exit status for every way it
    can end that is not a bug (see :func:`explain`)."""
    try:
        # Ctrl-C (and a closed terminal) reach the command at a checkpoint only: raised in the
        # middle of "await f()", between making the coroutine and awaiting it, it would leave
        # a never-awaited coroutine, whose RuntimeWarning took the closing sentence's place.
        # So nothing here may block the trio thread on the terminal (prompts read in a thread).
        status: int = trio.run(function, *args, restrict_keyboard_interrupt_to_checkpoints=True)
        return status
    except BaseException as error:
        explained = explain(error)
        if explained is None:
            raise
        status, sentence = explained
        say_error(sentence)
        return status
