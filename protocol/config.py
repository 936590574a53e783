"""A table's configuration, the games known by name, and the mapping between a config and
the transcript header (which is also the table's options frame at the join). Pure."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from p2p_sasaki.protocol.dealing import Dealer, MentalPokerDeck, TrustedDealer, check_dealer
from p2p_sasaki.protocol.game import Game
from p2p_sasaki.protocol.messages import MAX_ANSWER_MS, MAX_STALL_MS, MAX_WINDOW_MS, TranscriptHeader
from p2p_sasaki.protocol.sasaki_game import SASAKI, SasakiGame
from p2p_sasaki.sasaki.options import TableOptions

__all__ = ["Pace", "PACE_ORDER", "NO_PACE", "FAIR_PACE", "TableConfig", "GAMES", "GameFactory", "game_of", "dealer_of", "header_of", "config_of"]

# The games known by the header's name: name -> the game from its options bytes.
GameFactory = Callable[[bytes], Game]
GAMES: Mapping[str, GameFactory] = {SASAKI: SasakiGame.from_options_bytes}


# The kinds a Pace times, in the header's order (docs/protocol.md, "Window pacing"): the
# game's window kinds (DecisionKind values), "lead" (the opening slot) and "turn" (a bot's play).
PACE_ORDER: tuple[str, ...] = ("run", "expose", "stop", "chata", "kkojda", "lead", "turn")


@dataclass(frozen=True)
class Pace:
    """The fair windows' signed table options, in milliseconds: every answer to a window
    of kind k goes out ``window_ms[k]`` after the window opened (a bot's turn play likewise,
    kind "turn"), whatever the seat holds; a person's answer after that goes out when given,
    up to ``answer_ms``; ``stall_ms``: how long a table waits for a silent seat before the
    resume/abandon rules apply. :data:`NO_PACE` (no delays) is for tests and benchmarks;
    :data:`FAIR_PACE` is what ``sasaki host`` uses by default."""

    window_ms: tuple[int, ...] = (0,) * len(PACE_ORDER)
    answer_ms: int = 30_000
    stall_ms: int = 120_000

    def __post_init__(self) -> None:
        if len(self.window_ms) != len(PACE_ORDER) or any(not 0 <= d <= MAX_WINDOW_MS for d in self.window_ms):
            raise ValueError(f"a pace has {len(PACE_ORDER)} window delays of 0..{MAX_WINDOW_MS} ms")
        if not max(self.window_ms) <= self.answer_ms <= MAX_ANSWER_MS:
            raise ValueError("the answer deadline must be at least every window delay (and at most 600 s)")
        if not self.answer_ms <= self.stall_ms <= MAX_STALL_MS:
            raise ValueError("the stall deadline must be at least the answer deadline (and at most 3600 s)")

    @classmethod
    def of(cls, window: float = 1.0, claim: float = 1.5, turn: float = 1.0, answer: float = 30.0,
           stall: float = 120.0) -> Pace:
        """Seconds: ``claim`` for chata/kkojda, ``window`` for the other windows and the lead,
        ``turn`` for a bot's play."""
        ms = {"chata": claim, "kkojda": claim, "turn": turn}
        return cls(tuple(round(ms.get(k, window) * 1000) for k in PACE_ORDER), round(answer * 1000),
                   round(stall * 1000))

    def delay(self, kind: str) -> float:
        """Seconds after the opening at which an answer of ``kind`` goes out (0: unknown kind)."""
        return self.window_ms[PACE_ORDER.index(kind)] / 1000 if kind in PACE_ORDER else 0.0

    @property
    def answer_deadline(self) -> float:
        return self.answer_ms / 1000

    @property
    def stall_deadline(self) -> float:
        return self.stall_ms / 1000


NO_PACE = Pace()          # no delays: tests and benchmarks
FAIR_PACE = Pace.of()     # sasaki host's defaults: 1.5 s for chata/kkojda, 1 s for the rest


@dataclass(frozen=True)
class TableConfig:
    """What a table's creator chooses. ``game``: the rules (None: Sasaki with ``options``,
    the lead card resolved to 3H or 3S by the caller); ``dealer``: where the cards come from,
    b"" for the mental-poker deck, else a test dealer's seed (protocol/dealing.py: never
    from the command line; peers and the audit refuse any other)."""

    hands: int = 2
    options: TableOptions = TableOptions(lead_card="3H")
    proofs: bool = True
    game: Game | None = None
    dealer: bytes = b""
    pace: Pace = NO_PACE
    follows: bytes = b""
    """A follow-on table that replaced a seat (docs/protocol.md, "Replace seat"): the link it
    continues; ``carried``: each seat's total carried in (empty: zeros); ``seats``: the roster
    index at each seat, fixed (empty: the seating draw)."""
    carried: tuple[int, ...] = ()
    seats: tuple[int, ...] = ()


def game_of(config: TableConfig) -> Game:
    """The table's game: ``config.game``, or Sasaki with ``config.options``."""
    return config.game if config.game is not None else SasakiGame(config.options)


def dealer_of(config: TableConfig) -> Dealer:
    """The table's dealer from ``config.dealer`` (b"": the mental-poker deck)."""
    check_dealer(config.dealer)
    if config.dealer:
        return TrustedDealer(config.dealer)
    return MentalPokerDeck(config.proofs)


def header_of(table_id: bytes, roster_keys: Sequence[bytes], config: TableConfig,
              roster_names: Sequence[str] = ()) -> TranscriptHeader:
    """The transcript header (and the table's options frame) of a config; ``roster_names``
    in ``roster_keys`` order (none given: each member is called by its key)."""
    game = game_of(config)
    return TranscriptHeader(bytes(table_id), tuple(bytes(k) for k in roster_keys), config.hands, game.name,
                            game.options_bytes(), config.proofs, config.dealer, config.pace.window_ms,
                            config.pace.answer_ms, config.pace.stall_ms, tuple(roster_names), config.follows,
                            tuple(config.carried), tuple(config.seats))


def config_of(header: TranscriptHeader, games: Mapping[str, GameFactory] = GAMES) -> TableConfig:
    """The table config a header stands for; ValueError for an unknown game, bad options or
    a dealer that is not the tests' seeded one."""
    factory = games.get(header.game)
    if factory is None:
        raise ValueError(f"the transcript is of a game this program does not know: {header.game!r}")
    check_dealer(header.dealer)
    game = factory(header.game_options)
    try:
        pace = Pace(header.window_ms, header.answer_ms, header.stall_ms)
    except ValueError as exc:
        raise ValueError(f"the header's window options: {exc}") from exc
    if isinstance(game, SasakiGame):  # Sasaki is the config's default game: its options say it all
        return TableConfig(header.hands, game.options, header.proofs, dealer=header.dealer, pace=pace,
                           follows=header.follows, carried=header.carried, seats=header.seats)
    return TableConfig(header.hands, TableConfig.options, header.proofs, game=game, dealer=header.dealer, pace=pace,
                       follows=header.follows, carried=header.carried, seats=header.seats)
