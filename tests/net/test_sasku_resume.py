"""A Sasku peer killed and resumed (protocol/restore.py, protocol/net/persist.py, the driver's
save-before-send), in virtual time: four real drivers with their stores and transcript
files on the in-memory network (tests/net/test_resume.py's ``play``), the Sasku adapter
with bots that give a lone picture whenever they may and take it. The peer is killed right
after it signed a bid, its give, the hand-over of its picture, its layer on a picture handed
to it or its strip of its own (the re-lock), its take, the card it handed back, or a card to a
trick; it resumes from its data directory, and the
match ends with four byte-identical transcripts that audit clean, nobody having signed two
envelopes for a slot."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from p2p_sasaki.protocol.sasku_game import SaskuGame, TableBot
from p2p_sasaki.protocol.session import TableConfig
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasku.bots import HeuristicBot
from p2p_sasaki.sasku.deal import Give, Take
from p2p_sasaki.sasku.options import SaskuOptions
from tests.net.test_resume import check, play, signed_verb

pytestmark = pytest.mark.usefixtures("no_fsync")

CONFIG = TableConfig(hands=1, game=SaskuGame(SaskuOptions(target=30)), proofs=False)
# The peers' entropy (so the deal): hand 1 has a lone picture, given and taken, so every crash
# point comes in hand 1. A crash at the key reveal (the end of hand 1) is resumed into a whole
# hand 2 (TWO_HANDS): a resumed peer deals and plays a further hand.
ENTROPY = b"sasku 2"
TWO_HANDS = replace(CONFIG, hands=2)


class GivingBot:
    """Gives its lone picture whenever it may and takes a picture given to it; otherwise the
    engine's heuristic bot."""

    def __init__(self, rng: random.Random) -> None:
        self.bot = HeuristicBot(rng)

    def choose(self, view: Any, legal: Any, **budget: Any) -> Any:
        for kind in (Give, Take):
            chosen = [a for a in legal if isinstance(a, kind)]
            if chosen:
                return chosen[0]
        return self.bot.choose(view, legal)


def giving(seed: int) -> TableBot:
    return TableBot(GivingBot(random.Random(seed)))


@pytest.mark.parametrize(("verbs", "point"), [
    (("bid-five", "bid-six", "bid-seven", "bid-eight", "bid-nine", "pass"), "saved"),
    (("give",), "saved"),
    (("deck/hand-over",), "saved"),
    (("deck/hand-over",), "sent"),
    (("deck/hand-over-lock",), "saved"),
    (("deck/hand-over-strip",), "sent"),
    (("take",), "sent"),
    (("play",), "saved"),
    (("deck/key",), "saved"),
])
async def test_a_sasku_peer_killed_after_signing_resumes_and_the_match_ends_agreed(
        verbs: tuple[str, ...], point: str, tmp_path: Path, autojump_clock: Any) -> None:
    config = TWO_HANDS if verbs == ("deck/key",) else CONFIG
    run = await play(tmp_path, None, signed_verb(*verbs, point=point), config=config, bot=giving, entropy=ENTROPY)
    transcript = check(tmp_path, run, hands=config.hands)
    audit = audit_table(transcript)
    assert audit.header is not None and audit.header.game == "sasku"
    records = [state.record() or "" for state in audit.states]
    gave = any(" give " in line for record in records for line in record.splitlines())
    assert gave or verbs[0] in ("bid-five", "play", "deck/key"), "the crash came in a picture giving, replayed"


@pytest.mark.slow
async def test_a_sasku_peer_killed_after_its_proven_give_resumes_with_the_proofs_on(
        tmp_path: Path, autojump_clock: Any) -> None:
    """The deck's shuffle arguments and the hidden-card proofs on: the giver is killed after it
    sent its ``give`` with its proof; resumed, it signs the same bytes (its drawn entropy is
    saved), hands its picture over, and the match ends agreed."""
    run = await play(tmp_path, None, signed_verb("give", point="sent"), config=replace(CONFIG, proofs=True),
                     bot=giving, entropy=ENTROPY)
    check(tmp_path, run, hands=1)
