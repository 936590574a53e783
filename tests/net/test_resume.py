"""Resume after a crash (protocol/restore.py, protocol/net/persist.py, the driver's
save-before-send in protocol/net/table.py), in virtual time: four real drivers with their
stores and transcript files on a seeded in-memory network under ``MockClock``; one peer is
"killed" (its task cancelled: nothing runs after that point, its queued frames are gone) at
a chosen phase, then started again from its data directory with ``resume=True`` and a new
transport endpoint. The match must complete with four byte-identical transcripts that
audit clean, and nobody may have signed two different envelopes for a slot."""

from __future__ import annotations

import random
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import trio

from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.events import DecisionPending
from p2p_sasaki.protocol.messages import decode_envelope
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.persist import TableStore, unfinished_tables
from p2p_sasaki.protocol.net.table import BotPlayer, TableResult, run_table
from p2p_sasaki.protocol.restore import (
    STALE_SENTENCE,
    RecordingEntropy,
    RestoreError,
    StaleSavedTable,
    restore_session,
)
from p2p_sasaki.protocol.sasaki_game import FAIR_PACE, SasakiGame
from p2p_sasaki.protocol.session import Phase, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.protocol.transcript import frame_records
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.hand import DecisionKind
from p2p_sasaki.sasaki.options import TableOptions

pytestmark = pytest.mark.usefixtures("no_fsync")   # in-process drivers: no disk waits (tests/conftest.py)

LINGER = 10.0
CONFIG = TableConfig(hands=2, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False)
# A crash within hand 1 of one hand is resumed into the rest of that hand and the match's end
# (its last records, every peer's finish); a crash at the key reveal (the end of hand 1), and
# one in play, are resumed into a whole hand 2 as well (CONFIG): a resumed peer deals and plays
# a further hand.
ONE_HAND = replace(CONFIG, hands=1)
IDENTITIES = [Identity.generate(SeededEntropy(b"resume peer %d" % n)) for n in range(4)]
KEYS = [identity.public_key for identity in IDENTITIES]
ROSTER = TableRoster(bytes(range(32)), tuple(TableMember(key, "memory", n, bytes(32)) for n, key in enumerate(KEYS)))

Trigger = Callable[[TableSession, str, list[tuple[int, int, str]], Any], bool]
"""(the victim's session, the crash point, (hand, slot, verb) of what it just signed, the
decision it was last asked: (hand, slot, kind) or None) -> crash now?"""


@dataclass
class Run:
    results: list[TableResult | None] = field(default_factory=lambda: [None] * 4)
    sessions: list[Any] = field(default_factory=lambda: [None] * 4)
    crashes: list[tuple[int, str, str, int, int]] = field(default_factory=list)  # victim, point, phase, hand, slot
    sent: dict[tuple[int, int, int, int], set[bytes]] = field(default_factory=dict)
    stale: list[tuple[int, str]] = field(default_factory=list)   # (peer, why) a resume refused


async def play(tmp: Path, victim: int | None, trigger: Trigger, *, config: TableConfig = CONFIG,
               network: MemoryNetwork | None = None, snapshot: Trigger | None = None,
               bot: Callable[[int], Any] = lambda seed: HeuristicBot(random.Random(seed)),
               entropy: bytes = b"session") -> Run:
    """A match where ``victim`` (None: whichever peer reaches it first) crashes once, at the
    first crash point where ``trigger`` holds, and is resumed from its data directory; with
    ``snapshot``, from a copy of that directory taken at the first crash point where
    ``snapshot`` held (an older backup). ``bot(seed)``: each peer's bot (the game's);
    ``entropy``: the seed of the peers' entropy (so of the deals)."""
    network = network or MemoryNetwork(KEYS, reconnect_after=0.5)
    run = Run()
    crashed = trio.Event()
    asked: list[Any] = [None] * 4
    backup = tmp / "backup"

    def hook(n: int, scope: trio.CancelScope) -> Callable[[str, list[bytes]], Awaitable[None]]:
        async def point(name: str, mine: list[bytes]) -> None:
            session = run.sessions[n]
            if (victim is not None and n != victim) or crashed.is_set() or session is None:
                return
            signed = [] if name == "recorded" else [(b.hand, b.slot, getattr(b.payload, "verb", b.type))
                                                    for b in (decode_envelope(f).body for f in mine)]
            if snapshot is not None and not backup.exists() and snapshot(session, name, signed, asked[n]):
                shutil.copytree(tmp / f"peer{n}", backup)
                return
            if not trigger(session, name, signed, asked[n]):
                return
            crashed.set()        # one crash: no other peer's trigger counts while this one waits
            if name == "sent":   # let what was broadcast reach the others first
                transport = network.transport(KEYS[n])
                while any(p.queued for p in transport.statistics().peers.values()):
                    await trio.sleep(0.001)
                await trio.sleep(0.01)
            run.crashes.append((n, name, session.phase.value, session.hand_no, session.slot))
            crashed.set()
            scope.cancel()
        return point

    def on_event(n: int) -> Callable[[Any, Any], None]:
        def event(ev: Any, session: Any) -> None:
            if session is not None:
                run.sessions[n] = session
            if isinstance(ev, DecisionPending) and ev.mine:
                asked[n] = (session.hand_no, session.slot, ev.decision.kind)
        return event

    async def peer(n: int) -> None:
        directory = tmp / f"peer{n}"
        transcript = directory / "table.sasaki"
        store = TableStore.create(directory / "tables" / ROSTER.table_id.hex(), ROSTER, transcript)
        resume = False
        for attempt in range(3):
            scope = trio.CancelScope()
            with scope:
                try:
                    run.results[n] = await run_table(
                        IDENTITIES[n], ROSTER, config if n == 0 else None,
                        player=BotPlayer(bot(n * 10 + attempt)),
                        transcript_path=transcript, on_event=on_event(n), linger=LINGER,
                        config_codec=(encode_config, decode_config), transport=network.transport(KEYS[n]),
                        step_in_thread=False, store=store, resume=resume,
                        entropy=SeededEntropy(b"%s %d attempt %d" % (entropy, n, attempt)),
                        crash_point=hook(n, scope))
                except BaseException as error:
                    stale = error.split(StaleSavedTable)[0] if isinstance(error, BaseExceptionGroup) else error
                    if not isinstance(stale, StaleSavedTable | BaseExceptionGroup):
                        raise
                    while isinstance(stale, BaseExceptionGroup):
                        stale = stale.exceptions[0]
                    run.stale.append((n, str(stale)))
                    await trio.sleep(LINGER)   # what the others make of my silence meanwhile
                    stop.cancel()
                    return
            if not scope.cancelled_caught:
                return
            run.sessions[n] = None
            await trio.sleep(1.0)      # down for a while: the others go on where they can
            if snapshot is not None:   # restored from the older copy
                shutil.rmtree(directory)
                shutil.copytree(backup, directory)
            network.restart(KEYS[n])
            resume = True

    with trio.fail_after(3600), trio.CancelScope() as stop:
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    return run


def check(tmp: Path, run: Run, hands: int = 2) -> bytes:
    """One crash happened; every peer finished; four byte-identical transcripts audit clean;
    no sender signed two different envelopes for a slot; nothing is left to resume."""
    assert len(run.crashes) == 1, run.crashes
    results = [r for r in run.results if r is not None]
    assert len(results) == 4 and all(r.finished and r.blame is None for r in results), [r.blame for r in results]
    transcripts = [(tmp / f"peer{n}" / "table.sasaki").read_bytes() for n in range(4)]
    assert transcripts == [transcripts[0]] * 4
    audit = audit_table(transcripts[0])
    assert audit.ok and audit.complete and len(audit.scores) == hands
    assert len({r.totals for r in results}) == 1 and results[0].totals == audit.totals
    for n in range(4):
        saved = TableStore(tmp / f"peer{n}" / "tables" / ROSTER.table_id.hex()).load()
        assert saved.finished
        slots = [(decode_envelope(e).body.hand, decode_envelope(e).body.slot) for e in saved.sent]
        by_slot: dict[tuple[int, int], set[bytes]] = {}
        for slot, envelope in zip(slots, saved.sent, strict=False):
            by_slot.setdefault(slot, set()).add(envelope)
        assert all(len(v) == 1 for v in by_slot.values()), "signed twice for a slot"
        assert unfinished_tables(tmp / f"peer{n}") == []
    return transcripts[0]


def phase_is(phase: Phase, point: str = "saved", nth: int = 1) -> Trigger:
    seen = [0]

    def trigger(session: TableSession, name: str, signed: list[tuple[int, int, str]], asked: Any) -> bool:
        if name != point or session.phase is not phase or session.hand_no < 1:
            return False
        seen[0] += 1
        return seen[0] == nth
    return trigger


def answered(kind: DecisionKind, point: str = "saved") -> Trigger:
    """Right after the victim signed its answer to a decision of ``kind``."""
    def trigger(session: TableSession, name: str, signed: list[tuple[int, int, str]], asked: Any) -> bool:
        return (name == point and asked is not None and asked[2] is kind
                and any((h, s) == asked[:2] for h, s, _ in signed))
    return trigger


def signed_verb(*verbs: str, point: str = "saved") -> Trigger:
    def trigger(session: TableSession, name: str, signed: list[tuple[int, int, str]], asked: Any) -> bool:
        return name == point and any(v in verbs for _, _, v in signed)
    return trigger


PHASES: dict[str, Callable[[], Trigger]] = {
    "seating": lambda: signed_verb("table/seat-commit"),
    "shuffle": lambda: signed_verb("deck/shuffle"),
    "strips": lambda: signed_verb("deck/strip"),
    "lead": lambda: signed_verb("lead", "decline"),
    "play": lambda: answered(DecisionKind.TURN),
    "chata window": lambda: answered(DecisionKind.CHATA),
    "key reveal": lambda: signed_verb("deck/key"),
}


FAST = {"play", "key reveal"}   # the others run in the slow tier (each match is a few seconds)


@pytest.mark.parametrize("phase", [p if p in FAST else pytest.param(p, marks=pytest.mark.slow) for p in PHASES])
async def test_a_joiner_crashes_and_resumes(phase: str, tmp_path: Path, autojump_clock: Any) -> None:
    config = CONFIG if phase in ("play", "key reveal") else ONE_HAND
    run = await play(tmp_path, 2, PHASES[phase](), config=config)
    check(tmp_path, run, hands=config.hands)


async def test_a_resume_from_an_older_copy_stops_and_accuses_nobody(tmp_path: Path, autojump_clock: Any) -> None:
    """Finding 5 of issue 18: the victim's data directory is copied after it signed its
    seat commitment; it goes on, signs and sends its shuffle, crashes, and is restored from
    the copy. Its replay would draw a different shuffle: the resume must see its own sent
    shuffle in the others' re-sends and stop with the one sentence, sending nothing, and
    nobody is blamed."""
    victim = 2
    run = await play(tmp_path, victim, signed_verb("deck/shuffle", point="sent"),
                     snapshot=signed_verb("table/seat-commit"))
    assert run.stale == [(victim, STALE_SENTENCE)]
    for n in range(4):
        if n != victim:
            session = run.sessions[n]
            assert session is not None and session.blame is None, session.blame
    shuffles = {f for f in TableStore(tmp_path / f"peer{victim}" / "tables" / ROSTER.table_id.hex()).load().sent
                if getattr(decode_envelope(f).body.payload, "verb", None) == "deck/shuffle"}
    assert shuffles == set()   # the older copy's state: it re-drew nothing it then saved or sent


@pytest.mark.parametrize("point", ["saved", "sent"])
async def test_crash_between_signing_and_sending_and_between_sending_and_recording(
        point: str, tmp_path: Path, autojump_clock: Any) -> None:
    """"saved": my envelope is signed and saved, not recorded nor sent; "sent": it went out
    (and reached the others), but the slot's record is not written."""
    run = await play(tmp_path, 1, answered(DecisionKind.TURN, point), config=ONE_HAND)
    check(tmp_path, run, hands=1)
    assert run.crashes[0][1] == point


@pytest.mark.parametrize("phase", ["seating", *(pytest.param(p, marks=pytest.mark.slow)
                                                for p in ("lead", "play", "key reveal"))])
async def test_the_creator_crashes_and_resumes(phase: str, tmp_path: Path, autojump_clock: Any) -> None:
    config = CONFIG if phase == "key reveal" else ONE_HAND
    run = await play(tmp_path, 0, PHASES[phase](), config=config)
    check(tmp_path, run, hands=config.hands)


async def test_a_crash_in_the_middle_of_writing_the_decks_records(tmp_path: Path, autojump_clock: Any) -> None:
    """The deck's records are written as one batch when the deck completes; a crash after
    five of them leaves records in the file that the restored session cannot complete from
    the file alone: it must not write them twice when the others' re-sends complete them."""
    seen = [0]

    def trigger(session: TableSession, name: str, signed: list[tuple[int, int, str]], asked: Any) -> bool:
        if name != "recorded" or session.hand_no != 1 or session.phase is Phase.DECK:
            return False
        seen[0] += 1
        return seen[0] == 5

    run = await play(tmp_path, 1, trigger, config=ONE_HAND)
    check(tmp_path, run, hands=1)


@pytest.mark.slow
async def test_a_crash_in_the_proofs_with_proofs_on(tmp_path: Path, autojump_clock: Any) -> None:
    config = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3S")), proofs=True)
    run = await play(tmp_path, 3, signed_verb("deck/shuffle-proof", point="sent"), config=config)
    check(tmp_path, run, hands=1)


@pytest.mark.parametrize("victim, trigger", [
    (2, lambda: signed_verb("lead", "decline")),        # the Pacer holds it 1 s: saved, never sent
    (1, lambda: answered(DecisionKind.TURN, "sent")),   # a bot's turn play held until open + D, then sent
])
async def test_a_crash_with_paced_windows(victim: int, trigger: Callable[[], Trigger], tmp_path: Path,
                                          autojump_clock: Any) -> None:
    """Fair windows on: the opening answer is signed and saved at once but held by the
    Pacer; a crash before its due time loses only the send, and the resumed peer sends the
    saved body (never a second one). A held turn play is saved before the Pacer lets it go."""
    config = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False, pace=FAIR_PACE)
    run = await play(tmp_path, victim, trigger(), config=config)
    check(tmp_path, run, hands=1)


# -- the sans-IO restore itself ----------------------------------------------------------

def test_recording_entropy_replays_then_records() -> None:
    entropy = RecordingEntropy(b"abc", lambda n: b"x" * n)
    assert entropy(2) == b"ab" and entropy(3) == b"cxx" and entropy.take_drawn() == b"xx"
    assert entropy(1) == b"x" and entropy.take_drawn() == b"x" and entropy.take_drawn() == b""


def test_a_restore_that_would_sign_differently_is_refused() -> None:
    """Lost entropy (the log cut short) after my envelopes went out: the restored session
    would sign other bytes for a slot it already signed; restoring refuses."""
    entropy = RecordingEntropy(b"", SeededEntropy(b"a"))
    session = TableSession(IDENTITIES[0], KEYS, ROSTER.table_id, CONFIG, entropy)
    session.start()
    others = [TableSession(IDENTITIES[n], KEYS, ROSTER.table_id, CONFIG, SeededEntropy(b"o%d" % n))
              for n in range(1, 4)]
    for other in others:
        other.start()
    mine: list[bytes] = []
    records: list[bytes] = []
    for _ in range(3):   # genesis, seat commit
        out = [f for s in [session, *others] for f in s.take_outgoing()]
        mine += [f for f in out if decode_envelope(f).body.sender == 0 and f not in mine]
        for s in [session, *others]:
            for f in out:
                s.receive(f)
    records = [e.data for e in session.take_events() if hasattr(e, "data")]
    transcript = frame_records(b"".join(records))[0]
    restored = restore_session(IDENTITIES[0], transcript, entropy.take_drawn(), mine)
    assert restored.session.slot == session.slot
    with pytest.raises(RestoreError):
        restore_session(IDENTITIES[0], transcript, b"", mine, fresh=SeededEntropy(b"other"))
