"""A person plays Sasku through the presenter (cli/presenter.py with cli/games/sasku.py): a
local deal (no network) from the adapter's state, the other three seats bots. Every kind of
decision is asked with the choices the page's buttons are named after (``Bid 5`` .. ``Bid 9``,
``Pass``, ``Diamonds``, ``Give a picture``, ``Take``, ``Refuse``, ``Trump clubs`` ..., card
names like ``QH``), answered by key (a button) or by typed words (the terminal), and the
snapshot the page reads holds the hand, the trick, the trump and each pair's points."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import trio

from p2p_sasaki.cards import CardSet
from p2p_sasaki.cli.games.sasku import SaskuTable
from p2p_sasaki.cli.presenter import Phase, Presenter, Prompt, Refusal
from p2p_sasaki.cli.tui import game_lines
from p2p_sasaki.cli.web.server import table_json
from p2p_sasaki.protocol.events import ActionApplied, Dealt, HandEnded, HandStarted, Seated
from p2p_sasaki.protocol.net.asking import Turn
from p2p_sasaki.protocol.sasku_game import SaskuGame, TableBot
from p2p_sasaki.sasku.bots import HeuristicBot
from p2p_sasaki.sasku.deal import random_hands
from p2p_sasaki.sasku.options import SaskuOptions

KEYS = tuple(bytes([i]) * 32 for i in range(4))
GAME = SaskuGame(SaskuOptions(target=12))
GIVING = 40   # this seed's deal: S2 gives S0 a picture (the bots bid, take and return)

Answer = Callable[[Prompt, Presenter], "str | tuple[str, str]"]


def play_deal(seed: int, you: int, answer: Answer, asked: list[tuple[str, list[str], tuple[str, ...]]],
              snapshots: list[dict[str, Any]] | None = None) -> Presenter:
    """Deal ``seed``'s hands, the person at ``you`` answering with ``answer`` (a choice key
    as ("key", k), or typed words), the others heuristic bots; every prompt's kind, choice
    labels and playable cards go to ``asked``."""
    hands = random_hands(random.Random(seed))
    state = GAME.new_state([h >> 12 for h in hands], None, GAME.hand_context(1))
    bots = [TableBot(HeuristicBot(random.Random(seed * 4 + s))) for s in range(4)]
    session = SimpleNamespace(config=SimpleNamespace(game=GAME, hands=60), view=None, waiting_for=())
    presenter = Presenter()

    def tell(event: object) -> None:
        session.view = state.view(you)
        presenter.event(event, session)

    async def run() -> None:
        tell(Seated(KEYS, you, ("", "Mina", "", "")))
        tell(HandStarted(1))
        tell(Dealt(1, state.view(you).cards(you)))
        while (slot := state.slot()) is not None:
            seat = slot.seats[0]
            legal = tuple(state.legal_actions(seat))
            if seat == you:
                turn = Turn(seat, slot.decision, state.view(seat), legal)
                opened = presenter.open(turn)
                if isinstance(opened, Prompt):
                    asked.append((opened.kind, [c.label for g in opened.groups for c in g.choices], opened.playable))
                    if snapshots is not None:
                        snapshots.append(json.loads(json.dumps(table_json(presenter.table()))))
                    reply = answer(opened, presenter)
                    if isinstance(reply, tuple):
                        result = presenter.answer(opened.id, key=reply[1])
                    else:
                        result = presenter.answer(opened.id, cards=reply)
                    assert not isinstance(result, Refusal), (opened, reply, result)
                    action = await presenter.wait(opened)
                else:
                    action = opened
            else:
                action = bots[seat].choose(state.view(seat), legal)
            for applied in state.apply([action]):
                tell(ActionApplied(applied.action, applied.lead))
        scores = state.scores()
        assert scores is not None
        tell(HandEnded(1, scores, scores, state.outcome()))

    trio.run(run)
    return presenter


def like_a_bot(seat: int, seed: int, typed: bool = False) -> Answer:
    """The person answers as the heuristic bot of ``seat`` would, by the choice's key (a
    button) or (``typed``) by the terminal's words."""
    bot = TableBot(HeuristicBot(random.Random(seed * 4 + seat)))

    def answer(prompt: Prompt, presenter: Presenter) -> str | tuple[str, str]:
        opened = presenter._open
        assert opened is not None and opened.turn is not None
        action = bot.choose(opened.turn.view, opened.legal)
        key = next(k for k, a in opened.answers.items() if a == action)
        if not typed:
            return ("key", key)
        if key.startswith("bid-"):
            return f"bid {key[4:]}"
        if key.startswith("trump-"):
            return f"trump {key[6]}"   # "trump h"
        return key if key in ("pass", "diamonds", "give", "take", "refuse") else f"play {key}".lower()

    return answer


def test_a_person_takes_a_picture_returns_a_card_names_the_trump_and_plays_by_buttons():
    asked: list[tuple[str, list[str], tuple[str, ...]]] = []
    snapshots: list[dict[str, Any]] = []
    presenter = play_deal(GIVING, 0, like_a_bot(0, GIVING), asked, snapshots)
    kinds = [kind for kind, _, _ in asked]
    assert kinds[:4] == ["bid", "answer", "return", "bid"] and "trump" in kinds and kinds.count("play") == 9
    first_bid = asked[0][1]
    assert first_bid[:5] == ["Bid 5", "Bid 6", "Bid 7", "Bid 8", "Bid 9"][:len(first_bid) - 2] or \
        {"Pass", "Diamonds"} <= set(first_bid)
    assert all(label.startswith("Bid ") or label in ("Pass", "Diamonds", "Give a picture") for label in first_bid)
    assert asked[1][1] == ["Take", "Refuse"]
    trump = next(labels for kind, labels, _ in asked if kind == "trump")
    assert sorted(trump) == ["Trump clubs", "Trump diamonds", "Trump hearts", "Trump spades"]
    returned = asked[2]
    assert returned[1] == list(returned[2]) or sorted(returned[1]) == sorted(returned[2])
    assert not any(card[0] in "JQ" for card in returned[2])   # never a picture handed back
    # The page's snapshot at the first card: the hand (by suit), the trump, both pairs, the race.
    at_play = next(s for s, (kind, _, _) in zip(snapshots, asked, strict=True) if kind == "play")
    game = at_play["game"]
    assert len(game["hand"]) == 9 and game["trump"] in ("clubs", "diamonds", "hearts", "spades")
    assert [p["label"] for p in game["pairs"]] == ["S0+S2", "S1 Mina+S3"] and game["pairs"][0]["yours"]
    assert game["race"] == "S0+S2 0, S1 Mina+S3 0 (to 12)" and game["target"] == 12
    assert at_play["prompt"]["kind"] == "play" and at_play["status"] == "Your turn: play a card."
    assert at_play["side"] == "Your pair: S0+S2"
    # The deal is over: every pair's points, the notes of the race.
    table = presenter.table()
    assert isinstance(table.game, SaskuTable) and table.phase is Phase.HAND_OVER
    assert sum(p.card_points for p in table.game.pairs) == 120 and sum(p.tricks for p in table.game.pairs) == 9
    assert any(note.text.startswith("  Match: S0+S2") for note in presenter.log)


def test_the_same_deal_typed_at_the_terminal_gives_the_same_result():
    by_key: list[tuple[str, list[str], tuple[str, ...]]] = []
    typed: list[tuple[str, list[str], tuple[str, ...]]] = []
    a = play_deal(GIVING, 0, like_a_bot(0, GIVING), by_key)
    b = play_deal(GIVING, 0, like_a_bot(0, GIVING, typed=True), typed)
    assert by_key == typed and a.totals == b.totals and a.rows == b.rows


def test_the_giver_is_asked_give_a_picture_and_its_hand_over_is_made_and_told():
    asked: list[tuple[str, list[str], tuple[str, ...]]] = []
    presenter = play_deal(GIVING, 2, like_a_bot(2, GIVING), asked)
    assert "Give a picture" in asked[0][1] and asked[0][0] == "bid"
    handed = [n.text for n in presenter.log if n.text.startswith("You hand ")]
    assert len(handed) == 1 and handed[0].endswith(" to your partner S0.")
    assert handed[0].split()[2][0] in "JQ"    # the picture, told to its giver only
    assert "give" not in [kind for kind, _, _ in asked]   # the hand-over itself is not asked


def test_refusing_a_picture_hands_it_back_without_asking():
    asked: list[tuple[str, list[str], tuple[str, ...]]] = []
    base = like_a_bot(0, GIVING)

    def refuse(prompt: Prompt, presenter: Presenter) -> str | tuple[str, str]:
        return "refuse" if prompt.kind == "answer" else base(prompt, presenter)

    presenter = play_deal(GIVING, 0, refuse, asked)
    assert [kind for kind, _, _ in asked][:2] == ["bid", "answer"] and "return" not in [k for k, _, _ in asked]
    assert any(n.text.startswith("You hand the refused ") and n.text.endswith(" back to S2.") for n in presenter.log)


def test_typed_words_that_are_not_a_choice_are_refused_with_the_reason():
    got: list[str] = []
    base = like_a_bot(0, GIVING)

    def probe(prompt: Prompt, presenter: Presenter) -> str | tuple[str, str]:
        if prompt.kind == "answer":
            got.append(str(presenter.answer(prompt.id, cards="bid 9")))
            got.append(str(presenter.answer(prompt.id, cards="AS")))
        if prompt.kind == "play" and len(got) == 2:
            held = CardSet.parse(" ".join(presenter.table().game.hand))
            other = next(c for c in CardSet.parse("6C 7C 8C 9C TC JC QC KC AC 6S 7S 8S 9S TS JS QS KS AS "
                                                   "6H 7H 8H 9H TH JH QH KH AH") if c not in held)
            got.append(str(presenter.answer(prompt.id, cards=str(other))))
            got.append(str(presenter.answer(prompt.id, cards="trump x")))
        return base(prompt, presenter)

    play_deal(GIVING, 0, probe, [])
    assert got[0].startswith("Refusal(reason=\"'bid 9' is not a choice now (Type: take or refuse)")
    assert got[1] in ("Refusal(reason='it is not a card you are asked for now')",
                      "Refusal(reason='you do not hold AS')")
    assert got[2].startswith("Refusal(reason='you do not hold ") and got[3] == "Refusal(reason='there is no suit x')"


def test_the_terminal_shows_the_contract_the_trick_the_hand_and_the_race():
    lines: list[list[str]] = []
    base = like_a_bot(0, GIVING)

    def look(prompt: Prompt, presenter: Presenter) -> str | tuple[str, str]:
        if prompt.kind == "play":
            lines.append(game_lines(presenter.table()) + presenter.part.prompt_lines(prompt))
        return base(prompt, presenter)

    play_deal(GIVING, 0, look, [])
    first = lines[0]
    assert first[0].startswith("Contract: S0 (S0+S2) plays ") and ", trump " in first[0]
    assert first[1].startswith("Trick: ") and first[2].startswith("Your hand: ")
    assert first[3].endswith("Match: S0+S2 0, S1 Mina+S3 0 (to 12).")
    assert first[4].startswith("Your turn: play a card") and first[5].startswith("  Cards you can choose: ")
    assert first[6] == "  (Type the card to play, like QH; 'help' for help)"
    print("\n".join(first))


def test_the_server_serves_sasku_s_page_to_a_sasku_presenter_and_sasaki_s_unchanged():
    from p2p_sasaki.cli.web.page import page
    from p2p_sasaki.cli.web.sasku_page import sasku_page
    from p2p_sasaki.cli.web.server import WebTable

    assert WebTable(Presenter()).page() == page()
    sasku = WebTable(Presenter(game=GAME)).page()
    assert sasku == sasku_page() and "<title>Sasku table</title>" in sasku and "innerHTML" not in sasku
    assert '"Play" : "Return"' in sasku and ">Close table</button>" in sasku
