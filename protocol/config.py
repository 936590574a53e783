"""A table's configuration, the games known by name, and the mapping between a config and
the transcript header (which is also the table's options frame at the join). Pure."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from p2p_sasaki.options import TableOptions
from p2p_sasaki.protocol.dealing import Dealer, MentalPokerDeck, TrustedDealer, check_dealer
from p2p_sasaki.protocol.game import Game
from p2p_sasaki.protocol.messages import TranscriptHeader
from p2p_sasaki.protocol.sasaki_game import SASAKI, SasakiGame

__all__ = ["TableConfig", "GAMES", "GameFactory", "game_of", "dealer_of", "header_of", "config_of"]

# The games known by the header's name: name -> the game from its options bytes.
GameFactory = Callable[[bytes], Game]
GAMES: Mapping[str, GameFactory] = {SASAKI: SasakiGame.from_options_bytes}


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


def game_of(config: TableConfig) -> Game:
    """The table's game: ``config.game``, or Sasaki with ``config.options``."""
    return config.game if config.game is not None else SasakiGame(config.options)


def dealer_of(config: TableConfig) -> Dealer:
    """The table's dealer from ``config.dealer`` (b"": the mental-poker deck)."""
    check_dealer(config.dealer)
    if config.dealer:
        return TrustedDealer(config.dealer)
    return MentalPokerDeck(config.proofs)


def header_of(table_id: bytes, roster_keys: Sequence[bytes], config: TableConfig) -> TranscriptHeader:
    """The transcript header (and the table's options frame) of a config."""
    game = game_of(config)
    return TranscriptHeader(bytes(table_id), tuple(bytes(k) for k in roster_keys), config.hands, game.name,
                            game.options_bytes(), config.proofs, config.dealer)


def config_of(header: TranscriptHeader, games: Mapping[str, GameFactory] = GAMES) -> TableConfig:
    """The table config a header stands for; ValueError for an unknown game, bad options or
    a dealer that is not the tests' seeded one."""
    factory = games.get(header.game)
    if factory is None:
        raise ValueError(f"the transcript is of a game this program does not know: {header.game!r}")
    check_dealer(header.dealer)
    game = factory(header.game_options)
    if isinstance(game, SasakiGame):  # Sasaki is the config's default game: its options say it all
        return TableConfig(header.hands, game.options, header.proofs, dealer=header.dealer)
    return TableConfig(header.hands, TableConfig.options, header.proofs, game=game,
                       dealer=header.dealer)
