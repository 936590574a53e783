"""Seats shuffle and deal one hand, with shuffle arguments on and off: what the deal costs.

Prints, as medians over several runs (CPU time, so a shared machine disturbs it little):
  - the unit: one Ed25519 ``crypto_scalarmult_ed25519_noclamp`` (PyNaCl), timed in this
    run, beside one ristretto255 multiplication (the group the deck uses now);
  - the critical path: a discrete-event replay where each seat has ``--cores`` cores (one
    laptop each), messages arrive the moment they are sent, the session's own work is
    sequential, and its proof jobs (DeckSession.take_jobs, what protocol/net/workers.py
    runs) go to any free core; every step costs the CPU time it took here;
  - each seat's CPU time and count of variable-base multiplications, in seconds and in
    units of one Ed25519 multiplication;
  - the bytes of the deck's messages for one hand (deal and key reveals);
  - the audit of that hand's deck (audit_hand): from the keys, and verifying every argument;
  - how the deal grows with seats (2-8, 48 cards) and with cards (12-96, 4 seats);
  - with ``--hand-over``: what a private hand-over adds (docs/protocol.md, "Hand-over"):
    after the deal seat 0 hands a card to seat 2 (its partner at four seats) by the re-lock;
    the time on the critical path (the giver names the position, the receiver adds its
    layer, the giver strips its own, every seat checking each step's DLEQ), the busiest
    seat's multiplications, the bytes of the three envelopes, and the key reveal's check.

With ``--sasku``: a Sasku deal as a real table deals it (four TableSessions with SaskuGame: 36
cards, four seats, shuffle arguments and hidden-card proofs on; bench/sasku_deal.py's seats and
bots, the whole deal played) in the same replay, beside the deck's 36-card figure of the same
run (interleaved run by run), both in this run's unit, and their ratio (target, issue 19: no
slower); each hand-over of its picture giving (give, return: the re-lock's three steps, every
seat checking each; a give's also checks the give's hidden-card proof, a return its own proof)
from the giver's act to every seat applying it (target: at most 0.02 s); the bytes of the
deal's transcript (target: at most 100 KB).

With ``--open-seat S`` seat S is an open seat (a bot in an empty seat, docs/protocol.md
"Replace seat"): it shows its hand (the public strip round n), and a seat counts as dealt
once it holds its cards and has verified the show; ``--compare-open`` prints the deal
with and without it side by side (what an open bot adds per deal).

Usage: python bench/deal.py [--runs 3] [--cards 48] [--seats 4] [--cores 1 2] [--no-growth] [--open-seat S]
       [--compare-open] [--hand-over] [--sasku]
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import heapq
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from rbcl import _sodium as _libsodium  # the unit only: libsodium's Ed25519 multiply (no PyNaCl needed)

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.audit import audit_hand
from p2p_sasaki.protocol.crypto import G, IdentityKey, SeededEntropy
from p2p_sasaki.protocol.deck import DeckJob, DeckSession, HandDealt, HandShown, JobResult, Violation, run_job
from p2p_sasaki.protocol.events import ActionApplied, Dealt, HandStarted, Record
from p2p_sasaki.protocol.messages import Body, HandOver, HandOverLock, HandOverStrip, sign_envelope
from p2p_sasaki.protocol.sasku_game import N_CARDS as SASKU_CARDS
from p2p_sasaki.protocol.sasku_game import HandOverDecision
from p2p_sasaki.sasku.deal import Bid as SaskuBid

sys.path.append(str(Path(__file__).resolve().parent.parent))  # bench.sasku_deal (after the installed package)
from bench import sasku_deal  # noqa: E402

clock = time.thread_time  # CPU time of this thread: robust to a shared, noisy machine

MULTS = [0]
_mul = crypto.Group.mul


def _counting_mul(scalar: int, element: bytes) -> bytes:
    MULTS[0] += 1
    return _mul(scalar, element)


crypto.Group.mul = staticmethod(_counting_mul)


def time_primitive(fn: Callable[..., object], *args: object, number: int = 1000) -> float:
    start = clock()
    for _ in range(number):
        fn(*args)
    return (clock() - start) / number


def ed25519_unit() -> float:
    """One Ed25519 scalarmult_noclamp (the unit the issue states its targets in)."""
    buffer, out = ctypes.create_string_buffer(32), ctypes.create_string_buffer(32)
    _libsodium.crypto_core_ed25519_from_uniform(buffer, bytes(range(32)))
    point, scalar = buffer.raw, (0x1234567 * 2**200 + 5).to_bytes(32, "little")
    return statistics.median(
        time_primitive(_libsodium.crypto_scalarmult_ed25519_noclamp, out, scalar, point) for _ in range(5)
    )


def ristretto_mult() -> float:
    point = crypto.hash_to_group(b"bench", b"p")
    return statistics.median(time_primitive(_mul, 0x1234567 * 2**200 + 5, point) for _ in range(5))


@dataclass
class Seat:
    """One seat's timelines in the replay: its session's own thread and its cores."""

    session: Any   # the replay's Sessions
    cores: list[float]
    main_free: float = 0.0
    began: float = 0.0          # when the call on the session's own thread being handled began
    inbox: list[tuple[float, int, bytes, int]] = field(default_factory=list)
    jobs: list[tuple[float, int, DeckJob]] = field(default_factory=list)
    results: list[tuple[float, int, DeckJob, JobResult]] = field(default_factory=list)
    cpu: float = 0.0
    mults: int = 0
    dealt_at: float | None = None


@dataclass(frozen=True)
class HandFigures:
    critical: float
    cpu: float  # the busiest seat
    mults: float  # the busiest seat
    bytes: float
    audit_keys: float
    audit_args: float
    hand_over: float = 0.0           # seconds a hand-over adds to the critical path
    hand_over_mults: float = 0.0     # the busiest seat's multiplications for it
    hand_over_bytes: float = 0.0     # its three envelopes (deck/hand-over, -lock, -strip)
    hand_over_audit: float = 0.0     # the key reveal's check of it, at one seat


def measure_hand_over(sessions: list[DeckSession], keys: list[IdentityKey]) -> tuple[float, int, int]:
    """Seat 0 hands its first card to seat 2 (seat 1 with two seats) by the re-lock: (critical
    path seconds, the busiest seat's multiplications, the bytes of the three signed envelopes).
    The seats check each step in parallel: the path is the naming and its slowest check, the
    receiver's layer and the slowest check of it, the giver's strip and the slowest check of it
    (the receiver's, which also reads the card)."""
    giver, to = 0, 2 % len(sessions)
    hand = sessions[giver].hand
    assert hand is not None
    mults = [0] * len(sessions)

    def timed(seat: int, action: Callable[[], object]) -> tuple[object, float]:
        before, t0 = MULTS[0], clock()
        value = action()
        mults[seat] += MULTS[0] - before
        return value, clock() - t0

    def everyone(accept: Callable[[DeckSession], str | None]) -> float:
        checks = []
        for seat, session in enumerate(sessions):
            reason, spent = timed(seat, functools.partial(accept, session))
            if reason is not None:
                raise SystemExit(f"the hand-over was refused: {reason}")
            checks.append(spent)
        return max(checks)

    made, name = timed(giver, lambda: sessions[giver].hand_over(hand[0], to))
    message = cast(HandOver, made)
    path = name + everyone(lambda session: session.accept_hand_over(giver, message))
    made, spent = timed(to, sessions[to].relock)
    lock = cast(HandOverLock, made)
    path += spent + everyone(lambda session: session.accept_relock(to, lock))
    made, spent = timed(giver, sessions[giver].strip_lock)
    strip = cast(HandOverStrip, made)
    path += spent + everyone(lambda session: session.accept_strip(giver, strip))
    if sessions[to].held_card(message.position) != hand[0]:
        raise SystemExit("the receiver did not read the handed card")
    envelopes = [sign_envelope(Body(bytes(32), 1, 20, giver, bytes(32), message), keys[giver]),
                 sign_envelope(Body(bytes(32), 1, 21, to, bytes(32), lock), keys[to]),
                 sign_envelope(Body(bytes(32), 1, 22, giver, bytes(32), strip), keys[giver])]
    return path, max(mults), sum(len(e) for e in envelopes)


class Sessions(Protocol):
    """What the replay drives: a DeckSession, or a tournament's BoardSession (bench/tournament.py)."""

    def start(self) -> list[bytes]: ...
    def receive(self, envelope: bytes) -> None: ...
    def take_outgoing(self) -> list[bytes]: ...
    def take_jobs(self) -> list[DeckJob]: ...
    def finish_job(self, job: DeckJob, result: JobResult) -> None: ...
    def take_events(self) -> Sequence[object]: ...


def replay(sessions: Sequence[Sessions], cores: int, on_event: Callable[[Seat, object, float], None],
           idle: Callable[[list[Seat]], list[tuple[int, Callable[[], object]]]] | None = None
           ) -> tuple[list[Seat], list[bytes]]:
    """The discrete-event replay of the module docstring: each session's own work on its main
    thread, its proof jobs on any free one of its ``cores``, every message sent to every other
    session the moment it is sent; ``on_event(seat, event, at)`` sees each session's events.
    Returns the seats (CPU, multiplications, ``dealt_at`` as ``on_event`` set it) and every
    envelope sent, in order. ``idle(seats)``, asked when nothing is left to do, gives (seat,
    action) pairs to run on those seats' own threads (a bot's answer at a table), or none to
    stop; ``Seat.began`` is when the call whose events ``on_event`` sees began."""
    n = len(sessions)
    seats = [Seat(session, [0.0] * cores) for session in sessions]
    order = 0
    sent: list[bytes] = []

    def measure(seat: Seat, action: Callable[[], object]) -> tuple[object, float]:
        before = MULTS[0]
        t0 = clock()
        value = action()
        spent = clock() - t0
        seat.mults += MULTS[0] - before
        seat.cpu += spent
        return value, spent

    def after_main(index: int, end: float, returned: object) -> None:
        nonlocal order
        seat = seats[index]
        outgoing = (returned if isinstance(returned, list) else []) + seat.session.take_outgoing()
        for envelope in outgoing:
            sent.append(envelope)
            for other in range(n):
                if other != index:
                    order += 1
                    heapq.heappush(seats[other].inbox, (end, order, envelope, index))
        for job in seat.session.take_jobs():
            order += 1
            heapq.heappush(seat.jobs, (end, order, job))
        for event in seat.session.take_events():
            on_event(seat, event, end)

    def core(seat: Seat) -> int:
        return min(range(len(seat.cores)), key=seat.cores.__getitem__)

    for index, seat in enumerate(seats):
        seat.began = 0.0
        returned, spent = measure(seat, seat.session.start)
        seat.main_free = seat.cores[0] = spent
        after_main(index, spent, returned)
    while True:
        choices = []  # (start time, kind: 0 result, 1 message, 2 job, seat)
        for index, seat in enumerate(seats):
            free = seat.cores[core(seat)]
            if seat.results:
                choices.append((max(seat.results[0][0], seat.main_free, free), 0, index))
            if seat.inbox:
                choices.append((max(seat.inbox[0][0], seat.main_free, free), 1, index))
            if seat.jobs:
                choices.append((max(seat.jobs[0][0], free), 2, index))
        if not choices:
            acts = idle(seats) if idle is not None else []
            if not acts:
                break
            for index, act in acts:   # a bot answers at once, when its seat's own thread is free
                seat = seats[index]
                c = core(seat)
                seat.began = max(seat.main_free, seat.cores[c])
                returned, spent = measure(seat, act)
                seat.main_free = seat.cores[c] = seat.began + spent
                after_main(index, seat.began + spent, returned)
            continue
        start, kind, index = min(choices)
        seat = seats[index]
        c = core(seat)
        if kind == 2:  # a proof job on a free core, beside the session's own work
            _, _, job = heapq.heappop(seat.jobs)
            result, spent = measure(seat, functools.partial(run_job, job))
            seat.cores[c] = start + spent
            order += 1
            heapq.heappush(seat.results, (start + spent, order, job, cast(JobResult, result)))
            continue
        seat.began = start
        if kind == 0:
            _, _, job, result = heapq.heappop(seat.results)
            returned, spent = measure(seat, functools.partial(seat.session.finish_job, job, result))
        else:
            _, _, envelope, sender = heapq.heappop(seat.inbox)
            returned, spent = measure(seat, functools.partial(seat.session.receive, envelope))
        seat.main_free = seat.cores[c] = start + spent
        after_main(index, start + spent, returned)
    return seats, sent


def run_hand(n: int, n_cards: int, proofs: bool, cores: int, seed: bytes,
             shown: frozenset[int] = frozenset(), hand_over: bool = False) -> HandFigures:
    entropy = SeededEntropy(b"keys" + seed)
    keys = [IdentityKey.generate(entropy) for _ in range(n)]
    public = [k.public_key for k in keys]
    sessions = [DeckSession(s, n, n_cards, keys[s], public, bytes(32), 1, rng=SeededEntropy(seed + bytes([s])),
                            proofs=proofs, shown=shown) for s in range(n)]

    def on_event(seat: Seat, event: object, end: float) -> None:
        if isinstance(event, Violation):
            raise SystemExit(f"unexpected violation: {event}")
        if isinstance(event, HandDealt) and not shown:
            seat.dealt_at = end
        if isinstance(event, HandShown) and event.seat in shown and len(seat.session.shown_hands) == len(shown):
            seat.dealt_at = end       # an open seat's show verified (after its own deal: it follows it)

    seats, sent = replay(sessions, cores, on_event)
    sent_bytes = sum(len(envelope) for envelope in sent)
    if any(seat.dealt_at is None for seat in seats):
        raise SystemExit("the hand was not dealt")
    handed = (0.0, 0, 0)
    if hand_over:
        handed = measure_hand_over([seat.session for seat in seats], keys)
    keyed = clock()
    for seat in seats:  # the key reveals, for the hand's bytes and the audit
        for envelope in seat.session.reveal_key():
            sent_bytes += len(envelope)
            sent.append(envelope)
            for other in seats:
                if other is not seat:
                    other.session.receive(envelope)
    revealed = (clock() - keyed) / n   # every seat's key check, and with it each hand-over's
    for seat in seats:
        for event in seat.session.take_events():
            if isinstance(event, Violation):
                raise SystemExit(f"unexpected violation at the key reveal: {event}")
    audit: dict[bool, float] = {}
    for from_keys in (True, False):
        t0 = clock()
        result = audit_hand(sent, n=n, n_cards=n_cards, peer_public_keys=public, table_id=bytes(32), hand_no=1,
                            proofs=proofs, from_keys=from_keys, shown=shown)
        audit[from_keys] = clock() - t0
        if not result.ok:
            raise SystemExit(f"the audit failed: {result.violation}")
    return HandFigures(max(seat.dealt_at for seat in seats if seat.dealt_at is not None),
                       max(seat.cpu for seat in seats), max(seat.mults for seat in seats), sent_bytes,
                       audit[True], audit[False], handed[0], handed[1], handed[2], revealed)


@dataclass(frozen=True)
class SaskuFigures:
    """One Sasku deal at a table (four TableSessions, proofs on) in the replay."""

    deal: float                   # the critical path from the first seat's hand start to the last seat dealt
    transcript: int               # the bytes of the deal's transcript (header, seating, the deal, play, keys)
    hand_overs: dict[str, tuple[float, ...]]  # by kind (give, return, give-back): each one's critical path,
    #                                           the giver acts .. every seat applied it (the strip in)
    publics: tuple[float, ...]    # each public bid's: the bidder acts .. every seat applied it


def run_sasku_deal(cores: int, seed: int) -> SaskuFigures:
    """A whole Sasku deal as a real table deals and plays it (protocol/session.py with SaskuGame:
    the deck of 36 cards, four seats, shuffle arguments and hidden-card proofs), the four peers
    replayed like the deck's seats above, bots answering at once (bench/sasku_deal.py's)."""
    keys, peers = sasku_deal.table_sessions(seed, proofs=True)
    rng = random.Random(seed)
    started: list[float] = []
    records: list[bytes] = []
    acted: list[tuple[str, float, set[int], list[float]]] = []   # (kind, begin, seats applied, their ends)

    def on_event(seat: Seat, event: object, end: float) -> None:
        index = peers.index(seat.session)
        if isinstance(event, HandStarted) and event.hand_no == 1:
            started.append(seat.began)
        elif isinstance(event, Dealt):
            seat.dealt_at = end
        elif isinstance(event, Record) and index == 0:
            records.append(event.data)
        elif isinstance(event, ActionApplied) and acted and index not in acted[-1][2]:
            acted[-1][2].add(index)
            acted[-1][3].append(end)

    def idle(seats: list[Seat]) -> list[tuple[int, Callable[[], object]]]:
        acts: list[tuple[int, Callable[[], object]]] = []
        for index, peer in enumerate(peers):
            pending = peer.pending_for_me
            if pending is None:
                continue
            choice = sasku_deal.choose(peer.legal_actions, rng)
            kind = pending.kind if isinstance(pending, HandOverDecision) else \
                "bid" if isinstance(choice, SaskuBid) else "other"

            def act(peer: Any = peer, choice: Any = choice, kind: str = kind, index: int = index) -> None:
                acted.append((kind, seats[index].began, set(), []))   # the replay set when this call began
                peer.act(choice)

            acts.append((index, act))
        return acts

    seats, _ = replay(cast(list[Sessions], peers), cores, on_event, idle)   # a TableSession is driven as a deck's
    if not all(peer.finished and peer.blame is None for peer in peers) or any(s.dealt_at is None for s in seats):
        raise SystemExit(f"the Sasku deal of seed {seed} did not end cleanly: {[p.blame for p in peers]}")
    spans = {kind: tuple(max(ends) - begin for k, begin, applied, ends in acted if k == kind and len(applied) == 4)
             for kind in ("give", "return", "give-back", "bid")}
    return SaskuFigures(max(s.dealt_at for s in seats if s.dealt_at is not None) - min(started),
                        sum(len(r) for r in records), {k: v for k, v in spans.items() if k != "bid"}, spans["bid"])


SASKU_SEED = 5   # bench/sasku_deal.py's seeds 5 and 6 each deal a picture giving (a give and its return)


def sasku_summary(results: list[SaskuFigures]) -> dict[str, Any]:
    publics = [t for r in results for t in r.publics]
    hand_overs = {kind: [t for r in results for t in r.hand_overs[kind]] for kind in ("give", "return", "give-back")}
    return {"deal": statistics.median(r.deal for r in results),
            "transcript": statistics.median(r.transcript for r in results),
            "transcript_max": max(r.transcript for r in results),
            "hand_overs": {kind: (len(ts), statistics.median(ts)) for kind, ts in hand_overs.items() if ts},
            "public": statistics.median(publics) if publics else None}


def compare_sasku(args: argparse.Namespace, unit: float) -> None:
    """A Sasku deal at a table beside the deck's 36 cards at four seats, both in this run's unit."""
    for cores in args.cores:
        decks, tables = [], []
        for r in range(args.runs):   # interleaved: a shared machine's slow spells fall on both alike
            decks.append(run_hand(4, SASKU_CARDS, True, cores, bytes([r])).critical)
            tables.append(run_sasku_deal(cores, SASKU_SEED + r))
        deck = {"critical": statistics.median(decks)}
        table = sasku_summary(tables)
        ratio = table["deal"] / deck["critical"]
        print(f"{cores} core(s) a seat: a Sasku deal at a table (36 cards, 4 seats, proofs on): "
              f"critical path {table['deal']:.3f} s = {table['deal'] / unit:,.0f} units; the deck's 36 cards: "
              f"{deck['critical']:.3f} s = {deck['critical'] / unit:,.0f} units; ratio {ratio:.2f} "
              f"(target: no slower than the deck, ratio <= 1)")
        for kind, (count, spent) in table["hand_overs"].items():
            also = {"give": "; with the check of the give's hidden-card proof, made with 'give'",
                    "return": "; with its proof that the card is not a picture"}.get(kind, "")
            print(f"  a hand-over at the table, {kind} (the re-lock: the giver names the position, the receiver "
                  f"adds its layer, the giver strips its own, every seat checking each{also}; median of {count}): "
                  f"adds {spent:.4f} s = {spent / unit:,.0f} units (target <= 0.02 s)")
        if not table["hand_overs"]:
            print("  no hand-over came up in these deals (more --runs)")
        if table["public"] is not None:
            print(f"  for scale, a public bid's slot (the bidder signs, every seat checks): {table['public']:.4f} s = "
                  f"{table['public'] / unit:,.0f} units")
        print(f"  the deal's transcript: {table['transcript']:,.0f} bytes (median; largest "
              f"{table['transcript_max']:,}; target <= 100 KB = 102,400 bytes)")


def summary(n: int, n_cards: int, proofs: bool, cores: int, runs: int,
            shown: frozenset[int] = frozenset(), hand_over: bool = False) -> dict[str, float]:
    results = [run_hand(n, n_cards, proofs, cores, bytes([r]), shown, hand_over) for r in range(runs)]
    return {name: statistics.median(getattr(r, name) for r in results)
            for name in ("critical", "cpu", "mults", "bytes", "audit_keys", "audit_args", "hand_over",
                         "hand_over_mults", "hand_over_bytes", "hand_over_audit")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cards", type=int, default=48)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--cores", type=int, nargs="+", default=[1, 2], help="cores per seat (default: 1 2)")
    parser.add_argument("--no-growth", dest="growth", action="store_false", help="skip the seats/cards sweeps")
    parser.add_argument("--hand-over", action="store_true",
                        help="only what a private hand-over adds after the deal (proofs on)")
    parser.add_argument("--open-seat", type=int, default=None, help="this seat shows its hand (an open bot)")
    parser.add_argument("--compare-open", action="store_true",
                        help="only: the deal without and with an open seat (seat 1, or --open-seat)")
    parser.add_argument("--sasku", action="store_true",
                        help="only: a Sasku deal at a table beside the deck's 36 cards (4 seats, proofs on)")
    args = parser.parse_args()
    crypto.check_memo.enabled = False   # each seat stands for its own machine, which checks every proof itself
    shown = frozenset() if args.open_seat is None else frozenset({args.open_seat})
    if args.sasku:
        args.seats, args.cards = 4, SASKU_CARDS

    for n_cards in {12, 24, 36, 48, 72, 96, args.cards}:  # one-time per process: the generators
        crypto.shuffle_generators(n_cards)
    unit = ed25519_unit()
    mult = ristretto_mult()
    print(f"unit (this run, median of 5): one Ed25519 crypto_scalarmult_ed25519_noclamp = {unit * 1e6:.1f} us; "
          f"one ristretto255 scalarmult = {mult * 1e6:.1f} us ({mult / unit:.2f} units)")
    print(f"{args.seats} seats, {args.cards} cards; medians of {args.runs} runs; CPU = thread time; "
          "'per seat' = the busiest seat; remembered checks off (crypto.check_memo): every seat checks every "
          "proof itself"
          + (f"; seat {args.open_seat} is an open seat" if shown else "") + "\n")
    if args.compare_open:
        compare_open(args, shown or frozenset({1}), unit)
        return
    if args.sasku:
        compare_sasku(args, unit)
        return
    if args.hand_over:
        s = summary(args.seats, args.cards, True, args.cores[0], args.runs, hand_over=True)
        print(f"a private hand-over (seat 0 to seat {2 % args.seats}, after the deal, proofs on): adds "
              f"{s['hand_over']:.4f} s = {s['hand_over'] / unit:,.0f} units to the critical path; "
              f"{s['hand_over_mults']:,.0f} mults at the busiest seat; {s['hand_over_bytes']:,.0f} bytes "
              f"(deck/hand-over, deck/hand-over-lock and deck/hand-over-strip envelopes); the key reveal at one "
              f"seat (every key "
              f"checked, the hand-over with them) {s['hand_over_audit']:.4f} s\n"
              f"  the deal of the same runs: critical path {s['critical']:.3f} s = {s['critical'] / unit:,.0f} "
              f"units; deck bytes per hand {s['bytes']:,.0f}")
        return
    for proofs in (False, True):
        for cores in args.cores if proofs else args.cores[:1]:
            s = summary(args.seats, args.cards, proofs, cores, args.runs, shown)
            print(f"proofs {'on ' if proofs else 'off'}, {cores} core(s) a seat: "
                  f"critical path {s['critical']:.3f} s = {s['critical'] / unit:,.0f} units; "
                  f"CPU per seat {s['cpu']:.3f} s = {s['cpu'] / unit:,.0f} units; "
                  f"{s['mults']:,.0f} mults per seat; deck bytes per hand {s['bytes']:,.0f}")
            if proofs and cores == args.cores[0]:
                print(f"  audit of the hand's deck (audit_hand, CPU): from the keys {s['audit_keys']:.3f} s = "
                      f"{s['audit_keys'] / unit:,.0f} units; verifying every argument {s['audit_args']:.3f} s = "
                      f"{s['audit_args'] / unit:,.0f} units")
    if not args.growth:
        return
    cores = max(args.cores)
    print(f"\ngrowth (proofs on, {cores} core(s) a seat, 1 run each): seats at {args.cards} cards")
    for n in range(2, 9):
        s = summary(n, args.cards, True, cores, 1)
        print(f"  {n} seats: critical {s['critical']:.3f} s ({s['critical'] / unit:,.0f} u), "
              f"CPU/seat {s['cpu']:.3f} s ({s['cpu'] / unit:,.0f} u), {s['mults']:,.0f} mults/seat, "
              f"{s['bytes']:,.0f} bytes")
    print(f"growth: cards at {args.seats} seats")
    for n_cards in (12, 24, 36, 48, 72, 96):
        s = summary(args.seats, n_cards, True, cores, 1)
        print(f"  {n_cards} cards: critical {s['critical']:.3f} s ({s['critical'] / unit:,.0f} u), "
              f"CPU/seat {s['cpu']:.3f} s ({s['cpu'] / unit:,.0f} u), {s['mults']:,.0f} mults/seat, "
              f"{s['bytes']:,.0f} bytes")


def show_step(n: int, n_cards: int, seat: int, runs: int) -> tuple[float, float]:
    """The CPU time of the open seat's show (deck step 6b), medians over ``runs``: making it
    (x⁻¹ times each of its n_cards/n values, and the batched DLEQ proof) and checking it (the
    batched DLEQ verification every other seat runs), on the statement of a real deal: the
    values x·M_c of the hand's card points, under bases B and x·B."""
    makes, checks = [], []
    for r in range(runs):
        entropy = SeededEntropy(b"show" + bytes([r]))
        cards = crypto.card_points(bytes(32), bytes([r]) * 32, n_cards)[seat::n]
        base = crypto.base_point(bytes(32), bytes([r]) * 32)
        x = crypto.random_scalar(entropy)
        inputs, next_base = tuple(G.mul(x, c) for c in cards), G.mul(x, base)
        ctx = crypto.ProofContext(bytes(32), bytes([r]) * 32, f"strip/{n}", seat)
        t0 = clock()
        x_inv = crypto.scalar_inverse(x)
        values = tuple(G.mul(x_inv, v) for v in inputs)
        proof = crypto.dleq_batch_prove(ctx, x, base, next_base, values, inputs, entropy)
        makes.append(clock() - t0)
        t0 = clock()
        if not crypto.dleq_batch_verify(ctx, base, next_base, values, inputs, proof) or values != cards:
            raise SystemExit("the show does not verify")
        checks.append(clock() - t0)
    return statistics.median(makes), statistics.median(checks)


def compare_open(args: argparse.Namespace, shown: frozenset[int], unit: float) -> None:
    """What an open seat's show adds to one deal (proofs on, the first --cores value)."""
    cores = args.cores[0]
    plain = summary(args.seats, args.cards, True, cores, args.runs)
    opened = summary(args.seats, args.cards, True, cores, args.runs, shown)
    for name, s in (("without an open seat", plain), (f"open seat {sorted(shown)}", opened)):
        print(f"{name}: critical path {s['critical']:.3f} s; CPU per seat {s['cpu']:.3f} s; "
              f"{s['mults']:,.0f} mults per seat; deck bytes per hand {s['bytes']:,.0f}; "
              f"audit from the keys {s['audit_keys']:.3f} s")
    make, check = show_step(args.seats, args.cards, min(sorted(shown)), max(args.runs, 5))
    print(f"the show alone (medians of {max(args.runs, 5)}, CPU): the open seat makes it in {make * 1e3:.1f} ms "
          f"({make / unit:,.0f} units), every other seat checks it in {check * 1e3:.1f} ms ({check / unit:,.0f} "
          f"units): {(make + check) * 1e3:.1f} ms more on the deal's critical path")
    print(f"the open seat adds per deal: {opened['bytes'] - plain['bytes']:,.0f} bytes, "
          f"{opened['critical'] - plain['critical']:+.3f} s on the critical path, "
          f"{opened['cpu'] - plain['cpu']:+.3f} s CPU and {opened['mults'] - plain['mults']:+,.0f} mults "
          f"for the busiest seat, {opened['audit_keys'] - plain['audit_keys']:+.3f} s for the audit")


if __name__ == "__main__":
    main()
