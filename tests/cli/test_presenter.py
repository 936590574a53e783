"""cli/presenter.py: the notes, the table snapshot, prompts and the desk (first answer wins)."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import trio
import trio.testing

from p2p_sasaki.cards import CardSet
from p2p_sasaki.cli.games.sasaki import card_words
from p2p_sasaki.cli.presenter import NoteKind, Phase, Presenter, Refusal
from p2p_sasaki.protocol.events import DealProgress, HandAbandoned
from p2p_sasaki.protocol.net.table import BOT, Connected, Stalled, Turn, Waiting
from p2p_sasaki.protocol.sasaki_game import SasakiOutcome
from p2p_sasaki.protocol.session import ActionApplied, Dealt, HandEnded, HandStarted, MatchEnded, Seated
from p2p_sasaki.sasaki.hand import Decision, DecisionKind, Decline, Hand, Pass, Play, Stop
from tests.engine.sasaki.helpers import deal

KEYS = tuple(bytes([i]) * 32 for i in range(4))


def texts(presenter: Presenter, *events: object) -> list[str]:
    return [note.text for event in events for note in presenter.event(event, None)]


def turn_for(hand: Hand, seat: int) -> Turn:
    return Turn(seat, hand.decision, hand.view(seat), tuple(hand.legal_actions(seat)))


def playing_hand(*specs: str) -> Hand:
    hand = Hand.deal_from(deal(*specs), "3H")
    while hand.decision.kind is not DecisionKind.TURN:      # nobody runs
        hand.resolve([Decline(s) for s in hand.decision.seats])
    return hand


def test_plays_mark_you_and_tell_who_goes_out():
    presenter = Presenter()
    notes = texts(presenter, Seated(KEYS, 1), HandStarted(1),
                  ActionApplied(Play(0, CardSet.parse("3S")), lead=True),
                  ActionApplied(Play(1, CardSet.parse("5C")), lead=False),
                  ActionApplied(Pass(2)), ActionApplied(Decline(3)))
    assert notes == ["Seats drawn: you are S1. S0 peer 00000000, S1 peer 01010101, S2 peer 02020202, S3 peer 03030303.",
                     "Hand 1: shuffling and dealing (every peer shuffles, with proofs) ...",
                     "S0 leads 3S (single 3)", "You play 5C (single 5)", "S2 passes"]
    presenter.sizes[2] = 2
    assert texts(presenter, ActionApplied(Play(2, CardSet.parse("9C 9H")))) == [
        "S2 plays 9C 9H (pair of 9)", "S2 goes out (1st)."]
    presenter.sizes[1] = 1
    assert texts(presenter, ActionApplied(Play(1, CardSet.parse("AS")))) == [
        "You play AS (single A)", "You go out (2nd)."]


def test_waiting_is_told_once_per_change_with_what_is_awaited():
    presenter = Presenter()
    lines = texts(presenter,
                  Waiting((0, 1, 2, 3), KEYS),
                  Seated(KEYS, 1), HandStarted(1),
                  Waiting((2,), (KEYS[2],)),
                  Waiting((2,), (KEYS[2],)),
                  Waiting((2,), (KEYS[2],), offline=(2,)),
                  Waiting((2,), (KEYS[2],)),
                  Waiting((0, 2, 3), KEYS[0:1] + KEYS[2:]),
                  Waiting((0, 3), (KEYS[0], KEYS[3])))
    waits = [line for line in lines if line.startswith("Waiting")]
    assert waits == [
        "Waiting for 4 other players to connect ...",
        "Waiting for S2 to shuffle and deal ...",
        "Waiting for S2 to shuffle and deal ... (S2: no connection, reconnecting)",
        "Waiting for S2 to shuffle and deal ...",
        "Waiting for S0, S2, S3 to shuffle and deal ...",
    ]
    assert presenter.table().waiting == "Waiting for S0, S3 to shuffle and deal ..."
    texts(presenter, ActionApplied(Decline(0)), ActionApplied(Decline(3)))   # both answered
    assert presenter.table().waiting == "" and not any(seat.awaited for seat in presenter.table().seats)


def test_a_hand_result_gives_places_sides_and_each_score_with_its_reason_until_the_next_deal():
    presenter = Presenter(hands=2)
    texts(presenter, Seated(KEYS, 2), HandStarted(1))
    first = texts(presenter, HandEnded(1, (2, -2, -2, 2), (2, -2, -2, 2),
                                       SasakiOutcome((0, 3, 1, 2), (0, 3), 1, ("5C", "9H"))))
    assert first == ["Hand 1 is over: multiplier x1 (nobody ran).",
                     "  1st  S0, red: +2 (red side 1st and 2nd: +2 each, x1)",
                     "  2nd  S3, red: +2 (red side 1st and 2nd: +2 each, x1)",
                     "  3rd  S1, black: -2 (black side: red's +2 turned round, x1)",
                     "  4th  you (S2), black: -2 (black side: red's +2 turned round, x1); still held 5C 9H",
                     "Match totals: S0 +2, S1 -2, you (S2) -2, S3 +2."]
    result = presenter.table().hand_result
    assert result is not None and result.title == "Hand 1 result" and len(result.rows) == 4
    assert [(r.place, r.side, r.score) for r in result.rows] == [(1, "red", 2), (2, "red", 2), (3, "black", -2),
                                                                 (4, "black", -2)]
    assert result.rows[-1].remaining == ("5C", "9H") and result.totals == (2, -2, -2, 2)
    texts(presenter, HandStarted(2))
    assert presenter.table().hand_result is result             # it stays through the next shuffle ...
    texts(presenter, Dealt(2, CardSet.parse("3C 4C")))
    assert presenter.table().hand_result is None               # ... until the next deal's cards arrive
    last = texts(presenter, HandEnded(2, (-18, 6, 6, 6), (-16, 4, 4, 8), SasakiOutcome((1, 2, 3, 0), (0,), 2)),
                 MatchEnded((-16, 4, 4, 8)))
    assert last[:2] == ["Hand 2 is over: multiplier x2 (a run).",
                        "  1st  S1, black: +6 (against the lone red S0 (4th): +3, x2)"]
    assert "  4th  S0, red: -18 (alone against three, 4th: -9, x2)" in last
    assert last[-1] == "The match is over: S3 wins with +8. You: +4."
    sheet = presenter.table().scores
    assert sheet.rows == ((1, (2, -2, -2, 2)), (2, (-18, 6, 6, 6))) and sheet.winners == (3,) and sheet.final
    assert presenter.table().phase is Phase.MATCH_OVER
    assert presenter.table().result == "The match is over: S3 wins with +8. You: +4."


def test_legal_plays_are_grouped_by_kind_with_suit_variants_folded():
    hand = playing_hand("3H 5C 5D 9C 9H 9S JD", "3C 3D 3S")
    assert hand.decision == Decision(DecisionKind.TURN, (0,))
    presenter = Presenter()
    presenter.you = 0
    prompt, answers = presenter.prompt_for(turn_for(hand, 0))
    groups = {g.title: g for g in prompt.groups}
    assert list(groups)[:2] == ["Singles", "Pairs"]
    nines = next(c for c in groups["Pairs"].choices if c.label == "pair of 9")
    assert nines.variants == (("9C", "9H"), ("9C", "9S"), ("9H", "9S"))
    assert answers[nines.key] == Play(0, CardSet.parse("9C 9H"))
    assert not prompt.can_pass and prompt.seconds is None and "lead" in prompt.question
    listed = sum(len(c.variants) for g in prompt.groups for c in g.choices)
    assert listed == len(hand.legal_actions(0))
    assert len(answers) == sum(len(g.choices) for g in prompt.groups)   # one key per folded play


def test_a_forced_pass_is_played_by_itself():
    hand = playing_hand("3H AC AD AH", "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 4D")
    hand.apply(Play(0, CardSet.parse("AC AD")))
    assert hand.decision == Decision(DecisionKind.TURN, (1,)) and hand.legal_actions(1) == [Pass(1)]
    presenter = Presenter()
    presenter.event(Seated(KEYS, 1), None)
    forced = presenter.forced(turn_for(hand, 1))
    assert forced is not None and forced[0] == Pass(1)
    assert forced[1] is not None and forced[1].text == "You pass: nothing you hold beats AC AD."
    assert texts(presenter, ActionApplied(Pass(1)), ActionApplied(Pass(2))) == ["S2 passes"]   # told once


async def test_first_answer_wins_and_a_refusal_says_why():
    hand = playing_hand("3H 5C 5D 9C 9H 9S JD", "3C 3D 3S")
    presenter = Presenter()
    presenter.you = 0
    turn = turn_for(hand, 0)
    async with trio.open_nursery() as nursery:
        got: list[object] = []

        async def ask() -> None:
            got.append(await presenter.ask(turn))

        nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        prompt = presenter.prompt
        assert prompt is not None
        refusal = presenter.answer(prompt.id, cards="AS")
        assert isinstance(refusal, Refusal) and refusal.reason == "you do not hold AS"
        assert presenter.answer(prompt.id, cards="5C 9H") == Refusal(
            "5C 9H is not a combination (single, pair, triplet, four, sequence, Pig)")
        assert presenter.answer(prompt.id, key="pass") == Refusal("you cannot pass when you lead")
        assert presenter.answer(prompt.id, cards="9c 9s") == Play(0, CardSet.parse("9C 9S"))
        second = presenter.answer(prompt.id, cards="5C 5D")     # another tab, a moment later
        assert isinstance(second, Refusal) and "over" in second.reason
    assert got == [Play(0, CardSet.parse("9C 9S"))]
    assert presenter.prompt is None


async def test_a_window_declines_when_its_time_is_up(autojump_clock):
    presenter = Presenter(timeout=30)
    view = playing_hand("3H").view(2)
    turn = Turn(2, Decision(DecisionKind.STOP, (2,)), view, (Stop(2), Decline(2)))
    start = trio.current_time()
    action = await presenter.ask(turn)
    assert action == Decline(2) and trio.current_time() - start == 30
    assert presenter.log[-1].text == "Time is up: you decline." and presenter.log[-1].kind is NoteKind.PLAY


def test_card_words():
    assert [card_words(card) for card in CardSet.parse("TH 4S AC")] == ["four of spades", "ten of hearts",
                                                                       "ace of clubs"]


def test_names_are_shown_as_printable_text():
    presenter = Presenter()
    presenter.names = ("Ana", "Bo\x1b[2J", "", "x" * 30)
    presenter.you = 0
    assert [presenter.who(s) for s in range(4)] == ["you (S0 Ana)", "S1 Bo?[2J", "S2", "S3 " + "x" * 24]


def test_the_deal_is_one_line_that_fills_in_words():
    from p2p_sasaki.protocol.events import DealProgress

    presenter = Presenter()
    presenter.event(HandStarted(1), None)
    steps = [DealProgress("hand-id", 1, 1)] + [DealProgress("shuffle", i, 4) for i in (1, 2, 3, 4)] + [
        DealProgress("proof", i, 4) for i in (1, 2, 3, 4)] + [DealProgress("deal", 1, 1)]
    notes = [note for step in steps for note in presenter.event(step, None)]
    assert {note.kind for note in notes} == {NoteKind.PROGRESS}
    assert notes[0].text == ("Dealing [##..................] hand agreed; shuffled by 0 of 4 seats; "
                             "0 of 4 shuffle proofs checked")
    assert notes[2].text == ("Dealing [######..............] hand agreed; shuffled by 2 of 4 seats; "
                             "0 of 4 shuffle proofs checked")
    assert notes[-1].text == ("Dealing [####################] hand agreed; shuffled by 4 of 4 seats; "
                              "4 of 4 shuffle proofs checked; cards dealt")
    assert "hand-id" not in " ".join(note.text for note in notes)


@contextlib.asynccontextmanager
async def stall_question(presenter, stall):
    """The stall question asked in a task of its own, as the driver asks it: yields its open
    prompt (checked to be the stall prompt) and the list that gets the choice once answered."""
    got: list[str] = []

    async def ask() -> None:
        got.append(await presenter.stalled(stall))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        prompt = presenter.table().prompt
        assert prompt is not None and prompt.kind == "stall"
        yield prompt, got


async def test_the_stall_deadline_asks_every_view_to_wait_abandon_or_end(autojump_clock):
    from p2p_sasaki.protocol.net.table import Stalled

    presenter = Presenter()
    texts(presenter, Seated(KEYS, 1), HandStarted(1))
    since = trio.current_time()
    texts(presenter, Waiting((2,), (KEYS[2],), since=since, deadline=since + 120))
    await trio.sleep(125)
    assert presenter.table().waiting == "Waiting for S2 to shuffle and deal ... (for 2 min 5 s)"
    stall = Stalled(1, 0, (2,), since)
    assert texts(presenter, stall) == [
        "S2 has not answered for 2 min 5 s. Keep waiting, abandon this hand, or end the match?"]
    async with stall_question(presenter, stall) as (prompt, got):
        assert [c.key for g in prompt.groups for c in g.choices] == ["wait", "abandon", "end"]
        assert [c.label for g in prompt.groups for c in g.choices] == [
            "Keep waiting", "Abandon this hand", "End the match"]
        import json

        from p2p_sasaki.cli.web.server import table_json
        page = json.loads(json.dumps(table_json(presenter.table())))   # what the page is sent
        assert page["prompt"]["kind"] == "stall" and [g["choices"][0]["key"] for g in page["prompt"]["groups"]] == [
            "wait", "abandon", "end"]
        assert isinstance(presenter.answer(prompt.id, cards="9C"), Refusal)
        assert presenter.answer(prompt.id, key="abandon") == "abandon"
    assert got == ["abandon"] and presenter.prompt is None


def test_a_seat_that_left_and_an_abandoned_hand_are_told_without_blame():
    from p2p_sasaki.protocol.session import HandAbandoned, SeatLeft

    presenter = Presenter(hands=2)
    texts(presenter, Seated(KEYS, 1), HandStarted(1))
    assert texts(presenter, SeatLeft(2, 1)) == ["S2 left the table."]
    texts(presenter, Waiting((2,), (KEYS[2],), offline=(2,), left=(2,)))
    assert presenter.table().waiting == "Waiting for S2 to shuffle and deal ... (S2 left the table)"
    notes = texts(presenter, HandAbandoned(1, 14, (2,), None, True, "S2 left during hand 1; the hand is void"))
    assert notes == ["Hand 1 is abandoned (S2 left during hand 1; the hand is void): S2 left, nobody is blamed; "
                     "the match ends here."]
    assert presenter.table().waiting == ""


async def test_a_stall_that_allows_a_bot_adds_the_bot_for_s2_button(autojump_clock):
    """One seat awaited, not the last hand (``Stalled.bot_seat``): a fourth choice, on every view."""
    import json

    from p2p_sasaki.cli.web.server import table_json
    from p2p_sasaki.protocol.net.table import Stalled

    presenter = Presenter(hands=3)
    texts(presenter, Seated(KEYS, 1), HandStarted(1))
    stall = Stalled(1, 20, (2,), trio.current_time(), left=(2,), bot_seat=True)
    assert texts(presenter, stall) == [
        "S2 left the table. Keep waiting, abandon this hand, end the match, or go on with a bot in S2's seat?"]
    async with stall_question(presenter, stall) as (prompt, got):
        assert [(c.key, c.label) for g in prompt.groups for c in g.choices] == [
            ("wait", "Keep waiting"), ("abandon", "Abandon this hand"), ("end", "End the match"), ("bot", "Bot for S2")]
        page = json.loads(json.dumps(table_json(presenter.table())))   # the page shows one button per choice
        assert [g["choices"][0]["label"] for g in page["prompt"]["groups"]][-1] == "Bot for S2"
        assert presenter.answer(prompt.id, key="bot") == "bot"
    assert got == ["bot"] and presenter.prompt is None


def test_names_show_beside_the_seat_and_a_hostile_one_cannot_move_the_cursor():
    """The signed roster names, in seat order: "S2 Mina"; a member that chose none (its key's
    short form) stays "S2"; a control character that reached the view anyway is a "?"."""
    from p2p_sasaki.protocol.messages import default_name

    presenter = Presenter()
    names = ("Mina", default_name(KEYS[1]), "Jun\x1b[2J", "Bot 4")
    notes = texts(presenter, Seated(KEYS, 0, names), HandStarted(1),
                  ActionApplied(Play(0, CardSet.parse("3S")), lead=True), ActionApplied(Pass(1)),
                  ActionApplied(Pass(2)))
    assert notes == ["Seats drawn: you are S0 Mina. S0 Mina, S1 peer 01010101, S2 Jun?[2J, S3 Bot 4.",
                     "Hand 1: shuffling and dealing (every peer shuffles, with proofs) ...",
                     "You lead 3S (single 3)", "S1 passes", "S2 Jun?[2J passes"]
    seats = presenter.table().seats
    assert [s.label for s in seats] == ["You", "S1", "S2 Jun?[2J", "S3 Bot 4"]
    assert presenter.table().you_label == "S0 Mina"   # the page's "you are S0 Mina"


def play(hand: Hand, seat: int, cards: str) -> None:
    """``seat`` plays ``cards``; the windows it opens are declined by all."""
    hand.apply(Play(seat, CardSet.parse(cards)))
    while hand.decision.is_window:
        hand.resolve([Decline(s) for s in hand.decision.seats])


def test_the_status_says_your_turn_and_names_no_other_seat_even_after_a_stale_wait():
    """Issue 20, finding 1: a "Waiting for S3 ... chata" line outlived the window into your turn."""
    hand = playing_hand("3H 5C 5D 9C 9H 9S JD", "3C 3D 3S")
    play(hand, 0, "3H")
    presenter = Presenter()
    texts(presenter, Seated(KEYS, 1), HandStarted(1), Dealt(1, hand.view(1).cards))
    presenter.view = hand.view(1)
    texts(presenter, Waiting((3,), (KEYS[3],)))             # the driver's last word: waiting for S3
    assert presenter.status() == "Your turn."
    prompt = presenter.open(turn_for(hand, 1))
    assert not isinstance(prompt, Play)
    table = presenter.table()
    assert table.status == "Your turn: beat the top play, or pass."
    assert not any(f"S{s}" in table.status for s in range(4))
    assert not any(seat.awaited for seat in table.seats)    # no seat glows "thinking" at your turn
    assert presenter.waiting == ""                           # the terminal's delayed wait line is dropped


def test_the_status_reads_who_is_awaited_from_the_session_never_a_stale_set():
    hand = playing_hand("3H 5C 5D 9C 9H 9S JD", "3C 3D 3S")
    play(hand, 0, "3H")
    session = SimpleNamespace(waiting_for=(1,), view=hand.view(2))
    presenter = Presenter()
    presenter.event(Seated(KEYS, 2), session)
    presenter.event(HandStarted(1), session)
    presenter.event(Dealt(1, hand.view(2).cards), session)
    presenter.event(Waiting((0, 1, 3), KEYS[:2] + KEYS[3:], offline=(1,)), session)
    assert presenter.status() == "Waiting for S1 to play ... (S1: no connection, reconnecting)"
    assert [seat.awaited for seat in presenter.table().seats] == [False, True, False, False]
    hand.apply(Play(1, CardSet.parse("6C")))             # a single: the chata window opens for all
    session.view, session.waiting_for = hand.view(2), (0, 3)
    presenter.event(ActionApplied(Play(1, CardSet.parse("6C"))), session)
    assert presenter.status() == "Waiting for S0, S3 to answer the chata chance ..."


def test_your_side_is_told_once_you_can_know_it():
    def side(seat: int, hand: Hand) -> str:
        presenter = Presenter()
        presenter.event(Seated(KEYS, seat), None)
        presenter.view = hand.view(seat)
        return presenter.side_text()

    hand = playing_hand("3H 4C", "TH 5C", "TD 6C")
    assert side(1, hand) == "Your side: red (partner unknown)"
    assert side(0, hand) == "Your side: black"
    play(hand, 0, "3H")
    play(hand, 1, "TH")
    for seat in (2, 3, 0):
        hand.apply(Pass(seat))
    play(hand, 1, "5C")
    play(hand, 2, "TD")                                       # both red tens are public now
    assert side(1, hand) == "Your side: red, with S2"
    assert side(0, hand) == "Your side: black, with S3"
    alone = playing_hand("3H 4C", "TH TD 5C")
    assert side(1, alone) == "Your side: red, alone against three (you hold both red tens)"
    presenter = Presenter()
    notes = texts(presenter, Seated(KEYS, 1))
    presenter.view = hand.view(1)
    assert "Your side: red, with S2." in texts(presenter, ActionApplied(Pass(3)))   # told when it changes ...
    assert "Your side: red, with S2." not in texts(presenter, ActionApplied(Pass(0)))   # ... once
    assert not any(n.startswith("Your side") for n in notes)


async def test_the_run_question_says_what_is_at_stake():
    hand = Hand.deal_from(deal("3H 4C", "TH TD 5C"), "3H")
    assert hand.decision.kind is DecisionKind.RUN
    presenter = Presenter()
    texts(presenter, Seated(KEYS, 1))
    prompt, _ = presenter.prompt_for(turn_for(hand, 1))
    assert prompt.question == ("Run, showing TD TH? You would play alone against three, and the hand counts "
                               "double (x4 if an opponent calls Stop): 1st wins you +18, last loses -18.")
    pair = Hand.deal_from(deal("3H 4C", "TH 5C", "TD 6C"), "3H")
    prompt, _ = presenter.prompt_for(turn_for(pair, 1))
    assert prompt.question == ("Run, showing TH? The hand counts double (x4 if an opponent calls Stop); your "
                               "partner shows the other red ten: your side wins up to +4 each, or loses up to -4.")


def test_a_bots_log_names_its_own_seat_like_any_other():
    """Issue 20, finding 12: the demo's narrating bot was "you (S3 Bot 1)"."""
    presenter = Presenter(person=False)
    seated = texts(presenter, Seated(KEYS, 3, ("", "", "", "Bot 1")), HandStarted(1), Dealt(1, CardSet.parse("5C")))
    assert seated[0].startswith("Seats drawn: this is S3 Bot 1's log. ") and "you" not in seated[0]
    assert seated[-1] == "S3 Bot 1's cards: 5C"
    assert texts(presenter, ActionApplied(Play(3, CardSet.parse("5C")), lead=True)) == ["S3 Bot 1 leads 5C (single 5)"]


def test_the_deal_line_ends_full_when_the_cards_arrive():
    """Issue 20, findings 12 and 13: the bar stopped at 18 of 20 ("3 of 4 shuffle proofs checked")."""
    presenter = Presenter()
    texts(presenter, Seated(KEYS, 1), HandStarted(1))
    lines = texts(presenter, DealProgress("hand-id", 1, 1), DealProgress("shuffle", 4, 4),
                  DealProgress("proof", 3, 4), Dealt(1, CardSet.parse("3C 4C")))
    assert lines[-3] == ("Dealing [################....] hand agreed; shuffled by 4 of 4 seats; "
                         "3 of 4 shuffle proofs checked")
    assert lines[-2] == ("Dealing [####################] hand agreed; shuffled by 4 of 4 seats; "
                         "4 of 4 shuffle proofs checked; cards dealt")
    assert lines[-1] == "Your cards: 3C | 4C"


def test_after_connecting_the_wait_is_for_the_seat_draw():
    presenter = Presenter()
    lines = texts(presenter, Waiting((0, 1, 2), KEYS[:3]), Connected(), Waiting((1, 2), KEYS[1:3]))
    assert lines == ["Waiting for 3 other players to connect ...",
                     "Connected to the other three players; drawing seats.",
                     "Waiting for 2 other players to draw seats ..."]


async def test_a_bot_in_the_empty_seat_is_told_as_the_same_match_going_on(autojump_clock):
    """Issue 20, finding 13: "the match ends here", "a draw", "Match 2 starts: same four
    players", "Seats drawn" and "Hand 1 of 3" when a bot took the empty seat of hand 2 of 4."""
    presenter = Presenter()
    session = SimpleNamespace(config=SimpleNamespace(hands=4))
    presenter.event(Seated(KEYS, 0), session)
    presenter.event(HandStarted(1), session)
    presenter.event(HandEnded(1, (2, 2, -2, -2), (2, 2, -2, -2), SasakiOutcome((0, 1, 2, 3), (0, 1), 1)), session)
    presenter.event(HandStarted(2), session)
    async with trio.open_nursery() as nursery:
        async def choose() -> None:
            while presenter.prompt is None:
                await trio.sleep(0.1)
            presenter.answer(presenter.prompt.id, key=BOT)
        nursery.start_soon(choose)
        assert await presenter.stalled(Stalled(2, 5, (2,), 0.0, (), (), True)) == BOT
    told = texts(presenter, HandAbandoned(2, 5, (2,), None, True, "S2 stopped answering"), MatchEnded((2, 2, -2, -2)))
    assert not any("the match ends here" in t or "The match is over" in t for t in told), told
    presenter.new_match(carried=(2, 2, -2, -2))
    assert presenter.log[-1].text == (
        "The match goes on at a fresh table, with a bot in the empty seat: the same seats, the totals carried "
        "over. Bot's hand, open to all: its cards are shown to everyone at each deal, and each of its moves "
        "follows a rule every player checks.")
    new = SimpleNamespace(config=SimpleNamespace(hands=3))     # hand 2 (void) is played again, then 3 and 4
    assert [n.text for n in presenter.event(Seated(KEYS, 0), new)] == ["Seats as before: you are S0."]
    assert presenter.event(HandStarted(1), new)[0].text.startswith("Hand 2 of 4: ")
    assert presenter.table().hand_no == 2 and presenter.table().match_no == 1
    assert presenter.event(HandStarted(2), new)[0].text.startswith("Hand 3 of 4: ")


def test_the_open_bots_hand_is_shown_and_said_on_the_terminal_and_the_page():
    """A bot in an empty seat plays with its hand open to all: the note at the deal, the seat's
    cards in the snapshot (the page draws them face up), a line on the terminal's table."""
    from p2p_sasaki.cli.tui import table_lines
    from p2p_sasaki.cli.web.page import page
    from p2p_sasaki.protocol.events import Shown

    presenter = Presenter()
    cards = CardSet.parse("3C 4C 5D 6H 7S 8S 9C TD JH QS KC AD")
    names = ("Mina", "Jun", "Bot", "Leo")
    notes = texts(presenter, Seated(KEYS, 1, names), HandStarted(1), Shown(1, 2, cards))
    assert notes[-1] == ("Bot's hand, open to all: S2 Bot holds "
                         "3C | 4C | 5D | 6H | 7S | 8S | 9C | TD | JH | QS | KC | AD")
    presenter.session = SimpleNamespace(open_views=lambda: {2: SimpleNamespace(cards=CardSet.parse("5D 6H AD"))})
    table = presenter.table()
    assert [seat.open_cards for seat in table.seats] == [(), (), ("5D", "6H", "AD"), ()]
    assert "Bot's hand, open to all (S2 Bot): 5D 6H AD" in table_lines(table)
    assert "Bot's hand, open to all" in page() and "seat.open_cards" in page()
