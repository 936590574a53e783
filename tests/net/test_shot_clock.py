"""The shot clock (issue 18, finding 1), in virtual time: four real drivers with the real
TableSession on the in-memory network under ``MockClock(autojump_threshold=0)``, each seat a
scripted *person* answering through the real presenter (cli/presenter.py), not a bot.

- a person's window answer given before W goes out at exactly open + W;
- a person who never answers a window has declined at open + W (the driver declines, and the
  hand goes on), not at the table's answer deadline;
- a person's turn answer given before T, a forced pass included, goes out at open + T; a
  bot's forced pass likewise.
"""

from __future__ import annotations

import random
from typing import Any

import trio

from p2p_sasaki.cli.common import decode_config, encode_config
from p2p_sasaki.cli.presenter import Presenter, Prompt
from p2p_sasaki.protocol.config import Pace
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.net import Identity, TableRoster
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.table import BotPlayer, TableResult, Turn, WindowOpened, run_table
from p2p_sasaki.protocol.sasaki_game import PACE_KINDS
from p2p_sasaki.protocol.session import Record, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.hand import DecisionKind, Decline, Pass
from tests.net.test_fair_windows import CONFIG, IDENTITIES, KEYS, ROSTER, Stamped, _answers

# run, expose, stop, chata, kkojda, lead, turn (ms); the answer deadline far beyond every W.
PACE = Pace(tuple(zip(PACE_KINDS, (1000, 1100, 1200, 1500, 1600, 900, 700), strict=True)), 60_000, 120_000)
PEOPLE = TableConfig(hands=1, game=CONFIG.game, proofs=False, pace=PACE)


class ScriptedPerson:
    """A person at the real presenter: a window is answered ``window_after`` seconds after it
    opens (None: never; the claim if there is one, else decline), a turn ``turn_after``
    seconds after it opens with the heuristic bot's choice. A forced answer (the presenter
    gives it without a prompt) is returned at once, as the terminal does."""

    def __init__(self, seed: int, window_after: float | None, turn_after: float) -> None:
        self.presenter = Presenter(timeout=60.0)
        self.bot = HeuristicBot(random.Random(seed))
        self.window_after, self.turn_after = window_after, turn_after
        self.asked: list[tuple[Turn, bool]] = []   # (turn, forced)

    async def decide(self, turn: Turn) -> Any:
        opened = self.presenter.open(turn)
        self.asked.append((turn, not isinstance(opened, Prompt)))
        if not isinstance(opened, Prompt):
            return opened
        prompt = opened
        is_turn = turn.decision.kind is DecisionKind.TURN
        after = self.turn_after if is_turn else self.window_after
        if is_turn:
            choice = self.bot.choose(turn.view, turn.legal)
        else:
            choice = next((a for a in turn.legal if not isinstance(a, Decline)), turn.legal[0])

        async def answer() -> None:
            if after is None:
                return
            await trio.sleep(after)
            self.presenter.answer(prompt.id, **answer_of(self.presenter, choice, is_turn))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(answer)
            action = await self.presenter.wait(prompt)
            nursery.cancel_scope.cancel()
        return action


def answer_of(presenter: Presenter, choice: Any, is_turn: bool) -> dict[str, str]:
    """How a person gives ``choice`` at the presenter: a pass, the typed cards of a play, or
    the key of a window's choice."""
    if isinstance(choice, Pass):
        return {"key": "pass"}
    if is_turn:
        return {"cards": " ".join(str(card) for card in choice.cards)}
    opened = presenter._open
    assert opened is not None
    return {"key": next(k for k, a in opened.answers.items() if a == choice)}


async def play(players: list[Any], seed: int) -> tuple[list[Stamped], list[list[WindowOpened]], list[TableResult],
                                                          list[bytes]]:
    network = MemoryNetwork(KEYS)
    transports = [Stamped(network.transport(key)) for key in KEYS]
    opened: list[list[WindowOpened]] = [[] for _ in range(4)]
    records: list[list[bytes]] = [[] for _ in range(4)]
    results: list[TableResult | None] = [None] * 4

    def on_event(n: int) -> Any:
        presenter = getattr(players[n], "presenter", None)

        def event(ev: Any, session: Any) -> None:
            match ev:
                case WindowOpened():
                    opened[n].append(ev)
                case Record(data=data):
                    records[n].append(data)
            if presenter is not None:
                presenter.event(ev, session)
        return event

    def factory(n: int) -> Any:
        def make(identity: Identity, roster: TableRoster, config: Any) -> TableSession:
            return TableSession(identity, roster.keys, roster.table_id, config,
                                rng=SeededEntropy(b"shot clock %d %d" % (seed, n)))
        return make

    async def peer(n: int) -> None:
        results[n] = await run_table(
            IDENTITIES[n], ROSTER, PEOPLE if n == 0 else None, player=players[n], transcript_path=None,
            on_event=on_event(n), linger=1.0, config_codec=(encode_config, decode_config),
            session_factory=factory(n), transport=transports[n], step_in_thread=False)

    with trio.fail_after(36000):
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    done = [r for r in results if r is not None]
    return transports, opened, done, [b"".join(r) for r in records]


def _check(players: list[Any], seed: int, clock: Any) -> list[tuple[int, str, str, float, float]]:
    """Play a hand; return (seat's peer, kind, verb, sent at, opened at) of every answer each
    peer signed, after checking the table finished, agreed and audits."""
    transports, opened, results, transcripts = trio.run(play, players, seed, clock=clock)
    assert len(results) == 4 and all(r.finished for r in results)
    assert len(set(transcripts)) == 1 and audit_table(transcripts[0]).ok
    out = []
    for n in range(4):
        at = {(w.hand, w.slot): w for w in opened[n]}
        answers = _answers(transports[n], KEYS[n])
        assert len(answers) == len(opened[n])            # every decision of mine answered once
        for hand, slot, verb, time in answers:
            window = at[(hand, slot)]
            assert window.delay == PACE.delay(window.kind)
            out.append((n, window.kind, verb, time, window.at))
    return out


def test_a_persons_early_answers_are_held_to_open_plus_their_delay(autojump_clock: Any) -> None:
    """Window answers given at once and turn answers (forced passes included) given before T
    all leave at exactly open + the kind's delay."""
    players = [ScriptedPerson(n, window_after=0.2, turn_after=0.3) for n in range(4)]
    answers = _check(players, 3, autojump_clock)
    for n, kind, verb, sent, at in answers:
        assert sent == at + PACE.delay(kind), (n, kind, verb, sent - at)
    kinds = {kind for _, kind, _, _, _ in answers}
    assert {"run", "lead", "turn", "chata"} <= kinds
    forced = [t for p in players for t, was_forced in p.asked if was_forced and t.legal == (Pass(t.seat),)]
    assert forced                                         # forced passes came up, and were held like the rest
    assert any(verb != "decline" and kind not in ("turn", "lead") for _, kind, verb, _, _ in answers)   # claims


def test_a_person_who_never_answers_a_window_has_declined_at_its_delay(autojump_clock: Any) -> None:
    """Nobody answers any window: each seat's answer is a decline sent at exactly open + W
    (the answer deadline, 60 s, never comes into it), and the hand is played to its end."""
    players = [ScriptedPerson(n, window_after=None, turn_after=0.1) for n in range(4)]
    answers = _check(players, 4, autojump_clock)
    windows = [(kind, verb, sent, at) for _, kind, verb, sent, at in answers if kind not in ("turn", "lead")]
    assert windows and {kind for kind, _, _, _ in windows} >= {"run", "chata"}
    for kind, verb, sent, at in windows:
        assert verb == "decline" and sent == at + PACE.delay(kind), (kind, verb, sent - at)


def test_a_forced_pass_is_held_to_open_plus_the_turn_delay_for_bots_and_people(autojump_clock: Any) -> None:
    """Two people and two bots: every pass that was the only legal answer (the person's given by
    the presenter at once, the bot's chosen at once) leaves at exactly open + T."""
    players: list[Any] = [ScriptedPerson(0, 0.1, 0.1), BotPlayer(HeuristicBot(random.Random(1))),
                          ScriptedPerson(2, 0.1, 0.1), BotPlayer(HeuristicBot(random.Random(3)))]
    answers = _check(players, 5, autojump_clock)
    turns = [(n, verb, sent, at) for n, kind, verb, sent, at in answers if kind == "turn"]
    passes = {n for n, verb, _, _ in turns if verb == "pass"}
    assert passes & {0, 2} and passes & {1, 3}
    assert any(forced and t.legal == (Pass(t.seat),) for p in (players[0], players[2]) for t, forced in p.asked)
    for n, verb, sent, at in turns:
        assert sent == at + PACE.delay("turn"), (n, verb, sent - at)
