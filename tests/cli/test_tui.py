"""The terminal view's words, without a network: notes as lines, the table, grouped plays."""

from __future__ import annotations

from types import SimpleNamespace

import trio

from p2p_sasaki.cards import CardSet
from p2p_sasaki.cli import tui
from p2p_sasaki.cli.presenter import Presenter
from p2p_sasaki.protocol.net.table import Turn, Waiting
from p2p_sasaki.protocol.session import ActionApplied, HandStarted, Seated
from p2p_sasaki.sasaki.hand import DecisionKind, Decline, Hand, Pass, Play
from tests.engine.sasaki.helpers import deal

KEYS = tuple(bytes([i]) * 32 for i in range(4))


def narrated(monkeypatch, events):
    lines: list[str] = []
    monkeypatch.setattr(tui, "say", lines.append)
    narrator = tui.Narrator()
    for event in events:
        narrator.event(event, None)
    return lines


def test_plays_are_indented_and_declines_are_silent(monkeypatch):
    lines = narrated(monkeypatch, [
        Seated(KEYS, 1),
        ActionApplied(Play(0, CardSet.parse("3S")), lead=True),
        ActionApplied(Decline(2)),
        ActionApplied(Play(1, CardSet.parse("5C")), lead=False),
        ActionApplied(Pass(2)),
        ActionApplied(Play(1, CardSet.parse("9C 9H")), lead=True),
    ])
    assert lines == ["Seats drawn: you are S1. S0 peer 00000000, S1 peer 01010101, S2 peer 02020202, "
                     "S3 peer 03030303.",
                     "  S0 leads 3S (single 3)", "  You play 5C (single 5)",
                     "  S2 passes", "  You lead 9C 9H (pair of 9)"]


def test_waiting_lines_only_when_something_changes(monkeypatch):
    lines = narrated(monkeypatch, [
        Seated(KEYS, 1), HandStarted(1),
        Waiting((2,), (KEYS[2],)),
        Waiting((2,), (KEYS[2],)),
        Waiting((0, 2), (KEYS[0], KEYS[2])),
        Waiting((2,), (KEYS[2],)),
    ])
    assert [line for line in lines if line.startswith("Waiting")] == [
        "Waiting for S2 to shuffle and deal ...", "Waiting for S0, S2 to shuffle and deal ..."]


def test_the_table_and_the_grouped_plays_as_text():
    hand = Hand.deal_from(deal("3H 5C 5D 9C 9H 9S JD", "3C 3D 3S"), "3H")
    while hand.decision.kind is not DecisionKind.TURN:
        hand.resolve([Decline(s) for s in hand.decision.seats])
    presenter = Presenter()
    presenter.event(Seated(KEYS, 0), None)
    presenter.view = hand.view(0)
    table = tui.table_lines(presenter.table())
    assert table[0] == ("Table: You (S0): 12 cards; S1: 12 cards; S2: 12 cards; S3: 12 cards; multiplier x1.")
    assert table[1] == "No top play."
    assert table[2].startswith("Your hand: 3H | 4C 4D 4H 4S | 5C 5D 5H | ")
    prompt, _ = presenter.prompt_for(Turn(0, hand.decision, hand.view(0), tuple(hand.legal_actions(0))))
    lines = tui.prompt_lines(prompt, width=200)
    assert lines[0] == "Your turn: lead anything." and lines[1] == "Legal plays:"
    pairs = next(line for line in lines if line.startswith("  Pairs: "))
    assert "9C 9H / 9C 9S / 9H 9S" in pairs
    assert len(lines) < 12          # one line per kind, not one per suit variant


def test_passed_marker_is_the_passes_since_the_top_play():
    history = (Play(0, CardSet.parse("3S")), Pass(1), Play(2, CardSet.parse("5C")), Pass(3), Pass(0))
    assert tui.passed_since_last_play(SimpleNamespace(top=object(), history=history)) == [0, 3]
    assert tui.passed_since_last_play(SimpleNamespace(top=None, history=history)) == []


def lead_prompt(spec: str) -> tuple[list[str], dict]:
    hand = Hand.deal_from(deal(spec, "3C 3D 3S"), "3H")
    while hand.decision.kind is not DecisionKind.TURN:
        hand.resolve([Decline(s) for s in hand.decision.seats])
    presenter = Presenter()
    presenter.event(Seated(KEYS, 0), None)
    prompt, answers = presenter.prompt_for(Turn(0, hand.decision, hand.view(0), tuple(hand.legal_actions(0))))
    return tui.prompt_lines(prompt, width=80), answers


def test_the_numbers_of_a_kind_run_on_and_sequences_fold_one_line_per_length():
    lines, answers = lead_prompt("3H 4C 4D 5C 5D 6C 6H 7S 7D 8C 9S TD")
    assert lines[:8] == [
        "Your turn: lead anything.",
        "Legal plays:",
        "  Singles: 1) 3H   2) 4C / 4D   3) 5C / 5D   4) 6C / 6H   5) 7D / 7S   6) 8C",
        "           7) 9S   8) TD",
        "  Pairs: 9) 4C 4D   10) 5C 5D   11) 6C 6H   12) 7D 7S",
        "  Sequences of 3: 13) 3H 4C 5C   14) 4C 5C 6C   15) 5C 6C 7D   16) 6C 7D 8C",
        "                  17) 7D 8C 9S   18) 8C 9S TD",
        "  Sequences of 4: 19) 3H 4C 5C 6C   20) 4C 5C 6C 7D   21) 5C 6C 7D 8C",
    ]
    assert lines[-2:] == ["  Sequences of 8: 33) 3H 4C 5C 6C 7D 8C 9S TD",
                          "  (a number plays the suits shown; for others type the cards, like 3H 4D 5C)"]
    assert all(len(line) <= 80 for line in lines)
    # every number is listed once, in order: 1, 2, ... 33
    numbers = [int(word[:-1]) for line in lines[2:] for word in line.split() if word[:-1].isdigit() and word[-1] == ")"]
    assert numbers == list(range(1, 34)) == [int(key[1:]) for key in answers if key.startswith("c")]
    assert answers["c13"] == Play(0, CardSet.parse("3H 4C 5C")) and answers["c33"].cards == CardSet.parse(
        "3H 4C 5C 6C 7D 8C 9S TD")


def test_specials_come_after_the_ordinary_kinds_with_their_own_numbers():
    lines, answers = lead_prompt("3H 4C 4D 4S AC 9C 9H 9S 9D KS")   # the deal adds 4H 5C
    assert lines[2:] == [
        "  Singles: 1) 3H   2) 4C / 4D / 4H   3) 5C   4) 9C / 9D / 9H   5) KS   6) AC",
        "  Pairs: 7) 4C 4D / 4C 4H / 4D 4H   8) 9C 9D / 9C 9H / 9D 9H",
        "  Sequences of 3: 9) 3H 4C 5C",
        "  Triplets: 10) 4C 4D 4H / 4C 4D 4S / 4C 4H 4S",
        "            11) 9C 9D 9H / 9C 9D 9S / 9C 9H 9S",
        "  Sasaki: 12) 4C 4D AC / 4C 4H AC / 4D 4H AC",
        "  Fours: 13) 4C 4D 4H 4S   14) 9C 9D 9H 9S",
        "  (a number plays the suits shown; for others type the cards, like 4C 4S)",
    ]
    assert answers["c9"] == Play(0, CardSet.parse("3H 4C 5C"))
    assert answers["c14"] == Play(0, CardSet.parse("9C 9D 9H 9S"))


def test_a_message_after_the_deal_line_starts_on_a_line_of_its_own(monkeypatch, capsys):
    """The deal's line is rewritten in place on a terminal, without its newline: whatever is
    said next ends it first ("... 2 of 4 shuffle proofs checkedWaiting for S2" ran on)."""
    from p2p_sasaki.protocol.events import DealProgress

    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    narrator = tui.Narrator()
    narrator.event(Seated(KEYS, 0), None)
    narrator.event(HandStarted(1), None)
    capsys.readouterr()
    narrator.event(DealProgress("shuffle", 2, 4), None)
    narrator.say("The table is waiting.")
    out = capsys.readouterr().out
    assert out.endswith("shuffle proofs checked\nThe table is waiting.\n"), out


async def test_a_chata_window_you_cannot_claim_passes_without_a_line(monkeypatch, autojump_clock):
    """After every single a chata window opens for everyone: a person who cannot claim gets
    no line for it (it used to print two per card), yet it stays open for its delay."""
    hand = Hand.deal_from(deal("3H 5C 9C", "5D 5H 3C 3D 3S", "5S"), "3H")
    while hand.decision.kind is not DecisionKind.TURN:
        hand.resolve([Decline(s) for s in hand.decision.seats])
    hand.resolve([Play(0, CardSet.parse("3H"))])                 # a single: S1 may chata with 3C 3D
    decision = hand.decision                                     # read afresh: the hand moved on
    assert decision.kind is DecisionKind.CHATA and hand.legal_actions(2) == [Decline(2)]
    start = trio.current_time()
    turn = Turn(2, hand.decision, hand.view(2), tuple(hand.legal_actions(2)), start, 1.5, 30.0)
    action, end, lines = await _decide(monkeypatch, turn, [])
    assert action == Decline(2) and end == start + 1.5 and lines == []

async def test_a_person_is_told_only_the_waits_that_last(monkeypatch, autojump_clock):
    lines: list[str] = []
    monkeypatch.setattr(tui, "say", lines.append)
    narrator = tui.Narrator(wait_delay=2.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(narrator.run)
        for event in (Seated(KEYS, 0), HandStarted(1), Waiting((1,), (KEYS[1],))):
            narrator.event(event, None)
        await trio.sleep(0.5)
        narrator.event(ActionApplied(Decline(1)), None)         # S1 answered quickly: no line
        narrator.event(Waiting((2,), (KEYS[2],)), None)
        await trio.sleep(2.5)                                    # S2 takes its time: told once
        narrator.event(Waiting((2,), (KEYS[2],), offline=(2,)), None)   # a lost link: told at once
        await trio.sleep(0)
        nursery.cancel_scope.cancel()
    assert [line for line in lines if line.startswith("Waiting")] == [
        "Waiting for S2 to shuffle and deal ...",
        "Waiting for S2 to shuffle and deal ... (S2: no connection, reconnecting)"]


class ScriptedInput:
    """The terminal's line reader with lines typed at given virtual times."""

    def __init__(self, script: list[tuple[float, str]]) -> None:
        self.script = list(script)

    def discard(self) -> None:
        pass

    async def line(self) -> str | None:
        if not self.script:
            await trio.sleep_forever()
        at, text = self.script.pop(0)
        await trio.sleep_until(at)
        return text


def _window_turn(claimable: bool, delay: float) -> tuple[Turn, Hand]:
    """The run window at the start of a hand, for seat 0 (with or without a red ten)."""
    hand = Hand.deal_from(deal("3H 5C 5D 9C 9H 9S JD" + (" TD" if claimable else ""), "3C 3D 3S"), "3H")
    seat = next(s for s in hand.decision.seats if any(not isinstance(a, Decline) for a in hand.legal_actions(s))
                ) if claimable else next(s for s in hand.decision.seats if len(hand.legal_actions(s)) == 1)
    return Turn(seat, hand.decision, hand.view(seat), tuple(hand.legal_actions(seat)), trio.current_time(), delay,
                30.0), hand


async def _decide(monkeypatch, turn: Turn, script: list[tuple[float, str]]) -> tuple[object, float, list[str]]:
    lines: list[str] = []
    monkeypatch.setattr(tui, "say", lines.append)
    player = tui.HumanPlayer()
    player.narrator.show_waiting = False
    player.presenter.on_note.append(lambda note: lines.append(note.text))
    player._reader = ScriptedInput(script)  # type: ignore[assignment]
    action = await player.decide(turn)
    return action, trio.current_time(), lines


async def test_a_decline_only_window_stays_open_for_its_delay_then_declines(monkeypatch, autojump_clock):
    turn, hand = _window_turn(claimable=False, delay=1.5)
    assert turn.decision.kind is DecisionKind.RUN and list(turn.legal) == [Decline(turn.seat)]
    start = trio.current_time()
    action, end, lines = await _decide(monkeypatch, turn, [])
    assert action == Decline(turn.seat)
    assert end == start + 1.5                     # open for D, like a seat that could claim
    # One line, not two, for a window with nothing to claim (issue 20, finding 13).
    assert lines == ["Run window open: you have nothing to claim. (closes in 1.5 s)"]


async def test_a_decline_only_window_without_delay_declines_at_once(monkeypatch, autojump_clock):
    turn, _ = _window_turn(claimable=False, delay=0.0)
    start = trio.current_time()
    action, end, lines = await _decide(monkeypatch, turn, [])
    assert action == Decline(turn.seat) and end == start and lines == []


async def test_a_claimable_window_takes_the_typed_answer(monkeypatch, autojump_clock):
    turn, _ = _window_turn(claimable=True, delay=1.5)
    start = trio.current_time()
    action, end, lines = await _decide(monkeypatch, turn, [(start + 1.0, "n")])
    assert action == Decline(turn.seat) and end == start + 1.0   # given when typed (the driver holds it to D)
    assert lines[0].endswith("[y/N] (declines in 1.5 s)")        # the window's delay is the person's deadline


async def test_a_person_undecided_at_the_windows_delay_has_declined(monkeypatch, autojump_clock):
    """Issue 18: W is a person's deadline in a paced window (not the table's answer deadline):
    a claim typed after it is too late."""
    turn, _ = _window_turn(claimable=True, delay=1.5)
    start = trio.current_time()
    action, end, lines = await _decide(monkeypatch, turn, [(start + 4.0, "y")])
    assert action == Decline(turn.seat) and end == start + 1.5


async def test_the_stall_choice_is_typed_at_the_terminal(monkeypatch, autojump_clock):
    from p2p_sasaki.protocol.net.table import Stalled

    lines: list[str] = []
    monkeypatch.setattr(tui, "say", lines.append)
    player = tui.HumanPlayer()
    start = trio.current_time()
    player._reader = ScriptedInput([(start + 1, "maybe"), (start + 2, "e")])  # type: ignore[assignment]
    choice = await player.stalled(Stalled(1, 20, (2,), start - 120))
    assert choice == "end" and trio.current_time() == start + 2
    assert lines == ["  w) keep waiting   a) abandon this hand   e) end the match",
                     "Type w (keep waiting), a (abandon this hand) or e (end the match)."]
    assert player.presenter.prompt is None


async def test_b_chooses_a_bot_for_the_seat_when_the_stall_allows_it(monkeypatch, autojump_clock):
    from p2p_sasaki.protocol.net.table import Stalled

    lines: list[str] = []
    monkeypatch.setattr(tui, "say", lines.append)
    player = tui.HumanPlayer()
    start = trio.current_time()
    player._reader = ScriptedInput([(start + 1, "x"), (start + 2, "b")])  # type: ignore[assignment]
    choice = await player.stalled(Stalled(1, 20, (2,), start - 120, bot_seat=True))
    assert choice == "bot" and trio.current_time() == start + 2
    assert lines == ["  w) keep waiting   a) abandon this hand   e) end the match   b) go on with a bot for S2",
                     "Type w (keep waiting), a (abandon this hand), e (end the match) or b (a bot for S2)."]


async def test_a_wait_line_due_after_your_turn_opened_is_not_printed(monkeypatch, autojump_clock):
    """Issue 20, finding 1: "Waiting for S1 Bot 2, S2 Bot 4 to answer the chata chance ..." came
    under the Play prompt (the wait was over: it was your turn) and was never taken back."""
    hand = Hand.deal_from(deal("3H 5C 5D 9C 9H 9S JD", "3C 3D 3S"), "3H")
    while hand.decision.kind is not DecisionKind.TURN:
        hand.resolve([Decline(s) for s in hand.decision.seats])
    lines: list[str] = []
    monkeypatch.setattr(tui, "say", lines.append)
    player = tui.HumanPlayer(wait_delay=2.0)
    player._reader = ScriptedInput([(5.0, "1")])  # type: ignore[assignment]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(player.narrator.run)
        for event in (Seated(KEYS, 0), HandStarted(1), Waiting((1, 2), KEYS[1:3])):
            player.narrator.event(event, None)
        await trio.sleep(0.5)                         # the window closes; your turn opens at once
        action = await player.decide(Turn(0, hand.decision, hand.view(0), tuple(hand.legal_actions(0))))
        nursery.cancel_scope.cancel()
    assert isinstance(action, Play)
    assert not any(line.startswith("Waiting") for line in lines), lines


async def test_a_wait_line_never_runs_on_from_the_deal_line(monkeypatch, capsys, autojump_clock):
    """Issue 20, finding 13: "...2 of 4 shuffle proofs checkedWaiting for S2 ..." on a terminal."""
    from p2p_sasaki.protocol.events import DealProgress

    monkeypatch.setattr(tui.sys.stdout, "isatty", lambda: True)
    narrator = tui.Narrator(wait_delay=2.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(narrator.run)
        for event in (Seated(KEYS, 0), HandStarted(1), DealProgress("shuffle", 2, 4), Waiting((2,), (KEYS[2],))):
            narrator.event(event, None)
        await trio.sleep(2.5)
        nursery.cancel_scope.cancel()
    out = capsys.readouterr().out
    assert "shuffle proofs checked\nWaiting for S2 to shuffle and deal ...\n" in out, repr(out)
