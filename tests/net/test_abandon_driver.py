"""A player who leaves for good, in virtual time: four real drivers (protocol/net/table.py)
with the real TableSession on the in-memory network (protocol/net/memory.py) under
``MockClock(autojump_threshold=0)``. One peer's driver stops mid-hand after the strips (a
SIGKILL, or ``quit`` with its leave notice); the others see who they wait for and since
when, get the stall deadline's choices (bots: abandon; end the match when the seat left),
abandon, settle the void hand with the complement, and exit cleanly with identical
transcripts that audit as ``abandoned``, naming the seat only as having left."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

from p2p_sasaki.protocol.config import Pace
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.messages import decode_envelope
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.persist import TableStore
from p2p_sasaki.protocol.net.table import (
    ABANDON,
    END,
    WAIT,
    BotPlayer,
    PlayerLeft,
    Stalled,
    TableResult,
    Turn,
    Waiting,
    run_table,
)
from p2p_sasaki.protocol.sasaki_game import LEAD_SLOT, SasakiGame
from p2p_sasaki.protocol.session import HandAbandoned, Record, SeatLeft, TableConfig
from p2p_sasaki.protocol.table_audit import AuditStatus, audit_table
from p2p_sasaki.protocol.transcript import encode_record, frame_records
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.options import TableOptions

pytestmark = pytest.mark.usefixtures("no_fsync")   # in-process drivers: no disk waits (tests/conftest.py)

STALL = 90.0
PACE = Pace((), 1_000, round(STALL * 1000))
IDENTITIES = [Identity.generate(SeededEntropy(b"abandon peer %d" % n)) for n in range(4)]
KEYS = [identity.public_key for identity in IDENTITIES]
ROSTER = TableRoster(bytes(range(32)), tuple(TableMember(key, "memory", n, bytes(range(200, 232)))
                                             for n, key in enumerate(KEYS)))
VICTIM = 2


def config(hands: int) -> TableConfig:
    return TableConfig(hands=hands, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False, pace=PACE)


@dataclass
class Table:
    results: list[TableResult | BaseException | None] = field(default_factory=lambda: [None] * 4)
    records: list[list[bytes]] = field(default_factory=lambda: [[] for _ in range(4)])
    events: list[list[tuple[float, Any]]] = field(default_factory=lambda: [[] for _ in range(4)])
    seats: list[int | None] = field(default_factory=lambda: [None] * 4)
    gone_at: float | None = None

    def of(self, n: int, kind: type) -> list[tuple[float, Any]]:
        return [(t, e) for t, e in self.events[n] if isinstance(e, kind)]


class Chooser(BotPlayer):
    """A bot whose stall choices are scripted (then as a bot's)."""

    def __init__(self, bot: Any, script: list[str]) -> None:
        super().__init__(bot)
        self.script = list(script)
        self.asked: list[Stalled] = []

    async def stalled(self, stall: Stalled) -> str:
        self.asked.append(stall)
        return self.script.pop(0) if self.script else await super().stalled(stall)


class Quitter(BotPlayer):
    """A bot whose person types ``quit`` at its first decision after the opening slot;
    ``in_task``: typed in a task of the player's own, as the terminal reads (the quit then
    leaves ``decide`` wrapped in an exception group)."""

    def __init__(self, bot: Any, in_task: bool = False) -> None:
        super().__init__(bot)
        self.in_task = in_task

    async def decide(self, turn: Turn) -> Any:
        if turn.view is not None and len(turn.view.history) >= 1:
            if not self.in_task:
                raise PlayerLeft("you left the table")

            async def typed() -> None:
                raise PlayerLeft("you left the table")

            async with trio.open_nursery(strict_exception_groups=True) as nursery:
                nursery.start_soon(typed)
                await trio.sleep_forever()
        return await super().decide(turn)


async def play(hands: int, *, quit_: bool = False, quit_in_task: bool = False,
               scripts: dict[int, list[str]] | None = None, crasher: int | None = None,
               tmp: Path | None = None) -> Table:
    """``crasher`` (with ``tmp``): that present peer is killed right after it signed its abandon,
    before sending it, and resumed from its data directory a second later."""
    table = Table()
    network = MemoryNetwork(KEYS)
    players: list[Any] = []
    for n in range(4):
        bot = HeuristicBot(random.Random(n))
        if n == VICTIM and quit_:
            players.append(Quitter(bot, quit_in_task))
        else:
            players.append(Chooser(bot, (scripts or {}).get(n, [])))

    def on_event(n: int) -> Any:
        def event(ev: Any, session: Any) -> None:
            table.events[n].append((trio.current_time(), ev))
            if isinstance(ev, Record):
                table.records[n].append(ev.data)
            if session is not None and getattr(session, "my_seat", None) is not None:
                table.seats[n] = session.my_seat
        return event

    def kill(scope: trio.CancelScope) -> Any:
        async def point(name: str, mine: list[bytes]) -> None:
            bodies = [decode_envelope(f).body for f in mine]
            if name == "saved" and any(b.type == "table/action" and b.hand == 1 and b.slot > LEAD_SLOT
                                       for b in bodies) and table.gone_at is None:
                table.gone_at = trio.current_time()
                network.go_offline(KEYS[VICTIM])   # the machine is gone: its links drop
                scope.cancel()                     # SIGKILL: nothing more is sent
        return point

    def crash(scope: trio.CancelScope) -> Any:
        async def point(name: str, mine: list[bytes]) -> None:
            if name == "saved" and any(decode_envelope(f).body.type == "table/abandon" for f in mine):
                table.crashed = True  # type: ignore[attr-defined]
                scope.cancel()
        return point

    async def resumable(n: int) -> None:
        assert tmp is not None
        transcript = tmp / f"peer{n}.sasaki"
        store = TableStore.create(tmp / f"peer{n}" / ROSTER.table_id.hex(), ROSTER, transcript)
        for attempt in range(2):
            scope = trio.CancelScope()
            with scope:
                table.results[n] = await run_table(
                    IDENTITIES[n], ROSTER, config(hands) if n == 0 else None, player=players[n],
                    transcript_path=transcript, on_event=on_event(n), linger=5.0,
                    config_codec=(encode_config, decode_config), transport=network.transport(KEYS[n]),
                    step_in_thread=False, store=store, resume=attempt > 0,
                    entropy=SeededEntropy(b"abandon session %d attempt %d" % (n, attempt)),
                    crash_point=crash(scope) if attempt == 0 else None)
            if not scope.cancelled_caught:
                table.records[n] = [encode_record(kind, data) for kind, data in frame_records(
                    transcript.read_bytes())[0]]
                return
            await trio.sleep(1.0)
            network.restart(KEYS[n])

    async def peer(n: int) -> None:
        if n == crasher:
            await resumable(n)
            return
        scope = trio.CancelScope()
        with scope:
            try:
                table.results[n] = await run_table(
                    IDENTITIES[n], ROSTER, config(hands) if n == 0 else None, player=players[n],
                    transcript_path=None, on_event=on_event(n), linger=5.0,
                    config_codec=(encode_config, decode_config), transport=network.transport(KEYS[n]),
                    step_in_thread=False, entropy=SeededEntropy(b"abandon session %d" % n),
                    crash_point=kill(scope) if n == VICTIM and not quit_ else None)
            except* PlayerLeft as group:   # it ends the table (the CLI says so in one sentence)
                table.results[n] = group.exceptions[0]
                while isinstance(table.results[n], BaseExceptionGroup):
                    table.results[n] = table.results[n].exceptions[0]
                table.gone_at = trio.current_time()
        if n == VICTIM and scope.cancelled_caught:
            table.results[n] = None

    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    table.players = players  # type: ignore[attr-defined]
    return table


PRESENT = [n for n in range(4) if n != VICTIM]


def check_abandoned(table: Table, hands: tuple[int, ...], forfeited: tuple[int, ...] = ()) -> bytes:
    """The hands ``hands`` were abandoned, the seat that left; of them, ``forfeited`` (abandoned
    after the deal) are forfeits against it: -36 for it, +12 for each other seat (docs/rules.md,
    "Forfeit"), the totals include them, and the audit is complete when every abandoned hand is one."""
    seat = table.seats[VICTIM]
    forfeit = tuple(-36 if s == seat else 12 for s in range(4))
    totals = tuple(len(forfeited) * x for x in forfeit)
    for n in PRESENT:
        result = table.results[n]
        assert isinstance(result, TableResult) and result.finished and result.blame is None, result
        assert [e.hand for e in result.abandoned] == list(hands)
        assert all(e.left == (seat,) for e in result.abandoned)
        assert [e.forfeit for e in result.abandoned] == [seat if h in forfeited else None for h in hands]
        assert [(e.hand_no, e.scores) for e in result.hands] == [(h, forfeit) for h in forfeited]
        assert result.totals == totals
    transcripts = {b"".join(table.records[n]) for n in PRESENT}
    assert len(transcripts) == 1
    data = transcripts.pop()
    audit = audit_table(data)
    void = set(hands) - set(forfeited)
    assert audit.status is (AuditStatus.ABANDONED if void else AuditStatus.COMPLETE) and audit.blame is None
    assert audit.left == (seat,) and audit.abandoned == hands
    assert audit.forfeits == tuple(seat for _ in forfeited) and audit.totals == totals
    assert audit.scores == tuple(forfeit for _ in forfeited)
    return data


async def test_a_peer_killed_for_good_after_the_strips_is_abandoned_at_the_stall_deadline(autojump_clock):
    table = await play(hands=2)
    seat = table.seats[VICTIM]
    assert table.gone_at is not None
    check_abandoned(table, (1, 2), forfeited=(1,))   # hand 1 after the deal: a forfeit; hand 2 in the deal: void
    for n in PRESENT:
        waits = [(t, w) for t, w in table.of(n, Waiting) if w.seats == (seat,)]
        assert waits and all(w.deadline == w.since + STALL for _, w in waits)
        stalls = table.of(n, Stalled)
        # hand 1: the seat stopped in a game slot; hand 2: in the deal (the match went on; the
        # bots end it, the seat did not come back)
        assert [s.hand for _, s in stalls] == [1, 2] and all(s.seats == (seat,) and not s.left for _, s in stalls)
        assert [s.again for _, s in stalls] == [(), (seat,)]    # so the bots end the match at hand 2
        assert all(t == s.since + STALL for t, s in stalls)     # exactly at the deadline, in virtual time
        first, second = (e for _, e in table.of(n, HandAbandoned))
        assert first.deal is not None and all(mask is not None for mask in first.deal)   # the complement
        assert "left during hand 1" in first.reason and not first.end
        assert second.reason == f"stopped during the deal, waiting for S{seat}" and second.deal is None
        assert second.end


async def test_keep_waiting_asks_again_one_deadline_later_and_end_the_match_ends_it(autojump_clock):
    table = await play(hands=3, scripts={0: [WAIT, END], 1: [ABANDON], 3: [ABANDON]})
    check_abandoned(table, (1,), forfeited=(1,))     # one present seat chose to end the match: no further hands
    asked = table.players[0].asked   # type: ignore[attr-defined]
    assert len(asked) == 2 and asked[1].since >= asked[0].since + STALL
    for n in PRESENT:
        (_, event), = table.of(n, HandAbandoned)
        assert event.end


@pytest.mark.parametrize("in_task", [False, True], ids=["in decide", "in the player's own task"])
async def test_a_player_who_quits_sends_a_leave_notice_and_the_others_need_not_wait_for_the_deadline(
        in_task, autojump_clock):
    table = await play(hands=2, quit_=True, quit_in_task=in_task)
    seat = table.seats[VICTIM]
    assert isinstance(table.results[VICTIM], PlayerLeft)
    check_abandoned(table, (1,), forfeited=(1,))     # bots end the match when the seat left
    for n in PRESENT:
        (told_at, left), = table.of(n, SeatLeft)
        assert left.seat == seat
        stalls = table.of(n, Stalled)   # asked again if the awaited seats change meanwhile (others answer)
        assert stalls and all(s.left == (seat,) and t < s.since + STALL for t, s in stalls)
        assert stalls[0][0] == told_at
        assert any(w.left == (seat,) for _, w in table.of(n, Waiting))


@pytest.mark.parametrize("hands", [1])
async def test_the_victims_transcript_is_a_prefix_and_audits_as_incomplete(hands, autojump_clock):
    table = await play(hands=hands)
    victim = b"".join(table.records[VICTIM])
    data = check_abandoned(table, (1,), forfeited=(1,))
    audit = audit_table(victim)
    assert audit.status is AuditStatus.INCOMPLETE and audit.blame is None
    assert data.startswith(victim)


async def test_a_present_peer_killed_after_signing_its_abandon_resumes_and_the_abandon_completes(
        tmp_path, autojump_clock):
    """Resume across an abandon (protocol/restore.py feeds my saved abandon back to the
    session: it is my player's choice, not something the session signs by itself)."""
    table = await play(hands=1, crasher=0, tmp=tmp_path)
    assert getattr(table, "crashed", False)
    check_abandoned(table, (1,), forfeited=(1,))


class Person(BotPlayer):
    """A person for the driver (not ``is_bot``: undecided at a window's due time, it declines) who answers at once
    and chooses from ``choices`` at the stall questions (the last one from then on);
    ``slow``: at its first turn where it may lead or answer with a single, it thinks that many
    seconds and plays a single; ``quits``: it types ``quit`` at its first stall question."""

    is_bot = False

    def __init__(self, bot: Any, choices: tuple[str, ...] = (ABANDON,), slow: float = 0.0,
                 quits: bool = False) -> None:
        super().__init__(bot)
        self.choices, self.slow, self.quits = list(choices), slow, quits
        self.asked: list[Stalled] = []

    async def decide(self, turn: Turn) -> Any:
        from p2p_sasaki.sasaki.hand import Play
        singles = [a for a in turn.legal if isinstance(a, Play) and len(a.cards) == 1]
        if self.slow and singles and len(turn.view.history) >= 1:
            await trio.sleep(self.slow)
            self.slow = 0.0
            return singles[0]
        return await super().decide(turn)

    async def stalled(self, stall: Stalled) -> str:
        self.asked.append(stall)
        if self.quits:
            raise PlayerLeft("you left the table")
        return self.choices.pop(0) if len(self.choices) > 1 else self.choices[0]


async def test_a_quit_then_a_chata_window_with_people_and_a_bot_never_hangs(autojump_clock):
    """Finding 8 of issue 18: the creator and two joiners are people, the fourth a bot, fair
    windows on. The creator thinks past the stall deadline; a joiner quits at the stall
    question; the creator then plays a single, which opens a chata window. The stall question
    comes at once (an awaited seat left): the bot answered it before its paced window answer
    went out and never sent that answer, and the people's abandon, naming the bot and the
    quitter together, failed the majority check silently: the table hung for good. Now every
    seat that answered the window sends its answer, the abandon names the quitter alone, and
    the hand is its forfeit."""
    from p2p_sasaki.protocol.sasaki_game import sasaki_pace
    pace = sasaki_pace(window=4.0, claim=3.0, turn=1.0, answer=5.0, stall=10.0)
    cfg = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False, pace=pace)
    table = Table()
    network = MemoryNetwork(KEYS)
    players: list[Any] = [Person(HeuristicBot(random.Random(0)), slow=12.0),
                          Person(HeuristicBot(random.Random(1)), (WAIT, ABANDON)),
                          Person(HeuristicBot(random.Random(2)), quits=True),
                          Chooser(HeuristicBot(random.Random(3)), [])]

    def on_event(n: int) -> Any:
        def event(ev: Any, session: Any) -> None:
            table.events[n].append((trio.current_time(), ev))
            if isinstance(ev, Record):
                table.records[n].append(ev.data)
            if session is not None and getattr(session, "my_seat", None) is not None:
                table.seats[n] = session.my_seat
        return event

    async def peer(n: int) -> None:
        try:
            table.results[n] = await run_table(
                IDENTITIES[n], ROSTER, cfg if n == 0 else None, player=players[n], transcript_path=None,
                on_event=on_event(n), linger=5.0, config_codec=(encode_config, decode_config),
                transport=network.transport(KEYS[n]), step_in_thread=False,
                entropy=SeededEntropy(b"hang session %d" % n))
        except* PlayerLeft as group:
            table.results[n] = group.exceptions[0]

    with trio.fail_after(600):    # virtual time: a hang is a TooSlowError
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    check_abandoned(table, (1,), forfeited=(1,))
    seat = table.seats[VICTIM]
    for n in PRESENT:
        (_, left), = table.of(n, SeatLeft)
        assert left.seat == seat
        last = table.of(n, Stalled)[-1][1]     # the window's: the quitter alone, every answer in
        assert last.seats == (seat,) and last.left == (seat,)
    assert [s.seats for s in players[1].asked][0] != (seat,)   # first asked about the slow creator: waited


async def test_keep_waiting_after_a_quit_waits_one_deadline(autojump_clock):
    """Finding 8: "keep waiting" after a leave notice was asked again at once; it waits one
    stall deadline, like any other keep waiting."""
    table = await play(hands=1, quit_=True, scripts={0: [WAIT]})
    check_abandoned(table, (1,), forfeited=(1,))
    asked = table.players[0].asked   # type: ignore[attr-defined]
    (first, _), (second, _) = table.of(0, Stalled)
    assert len(asked) == 2 and asked[0].left and second == first + STALL


class SlowPerson(Person):
    """A person who thinks ``slow`` seconds at its first turn after the opening slot (any
    turn: a play or a pass) that it enters after the others (``sent_at()``: when its own last
    answer went out; one that went out less than ``LATENCY`` ago, the previous slot's last,
    lets it enter this slot before the others get it), then answers as its bot would."""

    def __init__(self, bot: Any, slow: float, sent_at: Any) -> None:
        super().__init__(bot, slow=slow)
        self.sent_at = sent_at

    async def decide(self, turn: Turn) -> Any:
        from p2p_sasaki.sasaki.hand import DecisionKind
        if (self.slow and turn.decision.kind is DecisionKind.TURN and len(turn.view.history) >= 1
                and trio.current_time() - self.sent_at() >= LATENCY):
            await trio.sleep(self.slow)
            self.slow = 0.0
        return await BotPlayer.decide(self, turn)


LATENCY = 1.5   # each frame of the slow person's, on the wire


async def slow_person_table(think: float) -> tuple[Table, list[Any]]:
    """Three bots and a person (peer ``VICTIM``) whose frames spend 1.5 s on each of its
    links (MemoryNetwork.set_latency): at its first turn with a single it thinks ``think``
    seconds. The answer and stall deadlines are both 10 s (the stall deadline is at least the
    answer deadline)."""
    from p2p_sasaki.protocol.net.pacing import WindowOpened
    from p2p_sasaki.protocol.sasaki_game import sasaki_pace
    pace = sasaki_pace(window=4.0, claim=3.0, turn=1.0, answer=10.0, stall=10.0)
    cfg = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False, pace=pace)
    table = Table()
    network = MemoryNetwork(KEYS)
    for n in range(4):
        if n != VICTIM:
            network.set_latency(KEYS[VICTIM], KEYS[n], LATENCY)
    players: list[Any] = [Chooser(HeuristicBot(random.Random(n)), []) for n in range(4)]

    def sent_at() -> float:
        now = trio.current_time()    # the current decision's own WindowOpened is due later
        return max((e.at + e.delay for _, e in table.of(VICTIM, WindowOpened) if e.at + e.delay <= now),
                   default=float("-inf"))

    players[VICTIM] = SlowPerson(HeuristicBot(random.Random(VICTIM)), think, sent_at)

    def on_event(n: int) -> Any:
        def event(ev: Any, session: Any) -> None:
            table.events[n].append((trio.current_time(), ev))
            if isinstance(ev, Record):
                table.records[n].append(ev.data)
            if session is not None and getattr(session, "my_seat", None) is not None:
                table.seats[n] = session.my_seat
        return event

    async def peer(n: int) -> None:
        table.results[n] = await run_table(
            IDENTITIES[n], ROSTER, cfg if n == 0 else None, player=players[n], transcript_path=None,
            on_event=on_event(n), linger=5.0, config_codec=(encode_config, decode_config),
            transport=network.transport(KEYS[n]), step_in_thread=False,
            entropy=SeededEntropy(b"slow person %d" % n))

    with trio.fail_after(600):    # virtual time: a hang is a TooSlowError
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    return table, players


async def test_bots_never_abandon_a_present_person_still_inside_its_answer_deadline(autojump_clock):
    """Issue 18 ("No hang, ever"): a present person thinks 9.5 s on a turn (inside its 10 s
    answer deadline) and its play spends 1.5 s on the wire, so it reaches the bots at 11 s,
    after both the stall and the answer deadline (10 s). The bots wait (the stall
    question is due at the answer deadline + ANSWER_GRACE, 12 s): nobody is asked, nothing is
    abandoned, the hand is played out and the four transcripts are identical and complete."""
    table, players = await slow_person_table(9.5)
    assert players[VICTIM].slow == 0.0                      # it did think 9.5 s on a turn
    for n in range(4):
        assert table.of(n, Stalled) == [] and table.of(n, HandAbandoned) == [], (n, table.of(n, Stalled))
    assert all(r is not None and not isinstance(r, BaseException) for r in table.results)
    transcripts = {b"".join(records) for records in table.records}
    assert len(transcripts) == 1
    audit = audit_table(transcripts.pop())
    assert audit.status is AuditStatus.COMPLETE and audit.blame is None and audit.forfeits == (None,)


async def test_without_the_grace_the_bots_abandon_the_slow_person_at_its_answer_deadline(
        autojump_clock, monkeypatch):
    """The test above without the rule (ANSWER_GRACE = 0: the behaviour issue 18 found, "a bot
    abandons for a present but slow person at the answer deadline"): the bots are asked at
    10 s, abandon the person before its play arrives, and the hand is its forfeit."""
    from p2p_sasaki.protocol.net import table as driver
    monkeypatch.setattr(driver, "ANSWER_GRACE", 0.0)
    table, players = await slow_person_table(9.5)
    assert players[VICTIM].slow == 0.0
    seat = table.seats[VICTIM]
    for n in PRESENT:
        (_, stall), *_ = table.of(n, Stalled)
        assert stall.seats == (seat,)
        (_, event), = table.of(n, HandAbandoned)
        assert event.forfeit == seat
