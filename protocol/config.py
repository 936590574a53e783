"""A table's configuration, the games known by name, and the mapping between a config and
the transcript header (which is also the table's options frame at the join). Pure.

The config holds its game (protocol/game.py) like any other option; nothing here knows
which game it is: the header carries the game's name, its options bytes and its pacing
kinds, and :data:`GAMES` turns a name back into a game."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from p2p_sasaki.protocol.dealing import Dealer, MentalPokerDeck, TrustedDealer, check_dealer
from p2p_sasaki.protocol.game import Game
from p2p_sasaki.protocol.messages import OpenBot, PaceDelay, TranscriptHeader
from p2p_sasaki.protocol.pace import NO_PACE, Pace
from p2p_sasaki.protocol.sasaki_game import SASAKI, SasakiGame

__all__ = ["Pace", "NO_PACE", "TableConfig", "GAMES", "GameFactory", "game_of", "dealer_of", "header_of", "config_of"]

# The games known by the header's name: name -> the game from its options bytes.
GameFactory = Callable[[bytes], Game]


def _sasku(options: bytes) -> Game:
    # Imported when a header names Sasku: a Sasaki table's processes never load Sasku's
    # engine, bots and adapter (about a twentieth of a command's start-up).
    from p2p_sasaki.protocol.sasku_game import SaskuGame

    return SaskuGame.from_options_bytes(options)


GAMES: Mapping[str, GameFactory] = {SASAKI: SasakiGame.from_options_bytes, "sasku": _sasku}


@dataclass(frozen=True)
class TableConfig:
    """What a table's creator chooses. ``game``: the rules with their options (e.g.
    ``SasakiGame(TableOptions(lead_card="3H"))``, the lead card resolved by the caller);
    ``dealer``: where the cards come from, b"" for the mental-poker deck, else a test
    dealer's seed (protocol/dealing.py: never from the command line; peers and the audit
    refuse any other); ``pace``: the game's pacing kinds' delays."""

    game: Game
    hands: int = 2
    proofs: bool = True
    dealer: bytes = b""
    pace: Pace = NO_PACE
    follows: bytes = b""
    """A follow-on table that replaced a seat (docs/protocol.md, "Replace seat"): the link it
    continues; ``carried``: each seat's total carried in (empty: zeros); ``seats``: the roster
    index at each seat, fixed (empty: the seating draw)."""
    carried: tuple[int, ...] = ()
    seats: tuple[int, ...] = ()
    bots: tuple[tuple[int, int], ...] = ()
    """The open bots as (bot, runner) roster indices: each bot's hand is shown to all at every
    deal and its moves are the open bot's rule (docs/protocol.md, "Replace seat")."""


def game_of(config: TableConfig) -> Game:
    """The table's game."""
    return config.game


def dealer_of(config: TableConfig) -> Dealer:
    """The table's dealer from ``config.dealer`` (b"": the mental-poker deck)."""
    check_dealer(config.dealer)
    if config.dealer:
        return TrustedDealer(config.dealer)
    return MentalPokerDeck(config.proofs)


def header_of(table_id: bytes, roster_keys: Sequence[bytes], config: TableConfig,
              roster_names: Sequence[str] = ()) -> TranscriptHeader:
    """The transcript header (and the table's options frame) of a config; ``roster_names``
    in ``roster_keys`` order (none given: each member is called by its key). ValueError if
    the pace times a kind the game does not have."""
    game = config.game
    pace = tuple(PaceDelay(kind, ms) for kind, ms in config.pace.listed(game.pace_kinds))
    return TranscriptHeader(bytes(table_id), tuple(bytes(k) for k in roster_keys), config.hands, game.name,
                            game.options_bytes(), config.proofs, config.dealer, pace,
                            config.pace.answer_ms, config.pace.stall_ms, tuple(roster_names), config.follows,
                            tuple(config.carried), tuple(config.seats),
                            tuple(OpenBot(bot, runner) for bot, runner in config.bots))


def config_of(header: TranscriptHeader, games: Mapping[str, GameFactory] = GAMES,
              dealer: Dealer | None = None) -> TableConfig:
    """The table config a header stands for; ValueError for an unknown game, bad options, a
    pace list that is not the game's kinds in its order, or a dealer that is not the tests'
    seeded one, or a tournament board's without ``dealer``, that board's dealer."""
    factory = games.get(header.game)
    if factory is None:
        raise ValueError(f"the transcript is of a game this program does not know: {header.game!r}")
    check_dealer(header.dealer, dealer)
    game = factory(header.game_options)
    kinds = tuple(entry.kind for entry in header.pace)
    if kinds != tuple(game.pace_kinds):
        raise ValueError(f"the header's pace lists {', '.join(kinds) or 'no kinds'}, not the game's pacing kinds "
                         f"({', '.join(game.pace_kinds) or 'none'}) in its order")
    try:
        pace = Pace(tuple((entry.kind, entry.ms) for entry in header.pace), header.answer_ms, header.stall_ms)
    except ValueError as exc:
        raise ValueError(f"the header's window options: {exc}") from exc
    return TableConfig(game, header.hands, header.proofs, header.dealer, pace, header.follows, header.carried,
                       header.seats, tuple((entry.bot, entry.runner) for entry in header.bots))
