"""Four peers shuffle and deal one hand, with shuffle proofs on and off.

Prints, as medians over several runs:
  - the critical path: a discrete-event replay where each peer is one core (as on four
    laptops), messages arrive the moment they are sent, a peer handles arrived messages
    before its queued proof work, and every step costs the CPU time it took here;
  - each peer's CPU time and count of variable-base scalar multiplications;
  - the ratio of measured CPU to (that count x one multiplication timed in this run),
    i.e. the protocol's overhead over its raw group operations.

Usage: python bench/deal.py [--runs 3] [--cards 48] [--seats 4] [--rounds 64]
"""

from __future__ import annotations

import argparse
import heapq
import statistics
import time


from p2p_sasaki.protocol import crypto  # noqa: E402
from p2p_sasaki.protocol.crypto import IdentityKey, SeededEntropy  # noqa: E402
from p2p_sasaki.protocol.deck import DeckSession, HandDealt, Violation  # noqa: E402

clock = time.thread_time  # CPU time of this thread: robust to a shared, noisy machine

COUNTS = {"mul": 0, "is_valid": 0, "add": 0}
_mul, _is_valid, _add = crypto.Group.mul, crypto.Group.is_valid, crypto.Group.add


def _counting(name, fn):
    def wrapper(*args):
        COUNTS[name] += 1
        return fn(*args)
    return staticmethod(wrapper)


crypto.Group.mul = _counting("mul", _mul)
crypto.Group.is_valid = _counting("is_valid", _is_valid)
crypto.Group.add = _counting("add", _add)


def time_primitive(fn, *args, number: int = 2000) -> float:
    start = clock()
    for _ in range(number):
        fn(*args)
    return (clock() - start) / number


def one_mult() -> float:
    point = crypto.hash_to_group(b"bench", b"p")
    return statistics.median(time_primitive(_mul, 0x1234567 * 2**200 + 5, point, number=1000) for _ in range(5))


def run_hand(n: int, n_cards: int, proofs: bool, rounds: int, seed: bytes) -> dict:
    entropy = SeededEntropy(b"keys" + seed)
    keys = [IdentityKey.generate(entropy) for _ in range(n)]
    public = [k.public_key for k in keys]
    table_id = bytes(32)
    sessions = [
        DeckSession(s, n, n_cards, keys[s], public, table_id, 1, rng=SeededEntropy(seed + bytes([s])),
                    proofs=proofs, shuffle_rounds=rounds)
        for s in range(n)
    ]
    free_at = [0.0] * n
    cpu = [0.0] * n
    mults = [0] * n
    inbox: list[list[tuple[float, int, bytes, int]]] = [[] for _ in range(n)]
    dealt_at = [None] * n
    order = 0

    def run(seat: int, start_time: float, action) -> None:
        nonlocal order
        before = COUNTS["mul"]
        t0 = clock()
        returned = action()
        spent = clock() - t0
        mults[seat] += COUNTS["mul"] - before
        cpu[seat] += spent
        end = start_time + spent
        free_at[seat] = end
        outgoing = (returned if isinstance(returned, list) else []) + sessions[seat].take_outgoing()
        for envelope in outgoing:
            for other in range(n):
                if other != seat:
                    order += 1
                    heapq.heappush(inbox[other], (end, order, envelope, seat))
        for event in sessions[seat].take_events():
            if isinstance(event, Violation):
                raise SystemExit(f"unexpected violation: {event}")
            if isinstance(event, HandDealt):
                dealt_at[seat] = end

    for seat in range(n):
        run(seat, 0.0, sessions[seat].start)
    while True:
        choices = []
        for seat in range(n):
            if inbox[seat]:
                arrival = inbox[seat][0][0]
                if arrival <= free_at[seat] or not sessions[seat].pending_work:
                    choices.append((max(arrival, free_at[seat]), 0, seat))
                    continue
            if sessions[seat].pending_work:
                choices.append((free_at[seat], 1, seat))
        if not choices:
            break
        start_time, kind, seat = min(choices)
        if kind == 0:
            _, _, envelope, sender = heapq.heappop(inbox[seat])
            run(seat, start_time, lambda: sessions[seat].receive(envelope, from_seat=sender))
        else:
            run(seat, start_time, sessions[seat].step)
    if None in dealt_at:
        raise SystemExit("the hand was not dealt")
    return {"critical": max(dealt_at), "cpu": cpu, "mults": mults}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cards", type=int, default=48)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=64)
    args = parser.parse_args()

    mult = one_mult()
    point = crypto.hash_to_group(b"bench", b"p")
    print(f"baseline (this run, median of 5): one crypto_scalarmult_ed25519_noclamp = {mult * 1e6:.1f} us; "
          f"is_valid_point = {statistics.median(time_primitive(_is_valid, point) for _ in range(5)) * 1e6:.1f} us; "
          f"add = {statistics.median(time_primitive(_add, point, point) for _ in range(5)) * 1e6:.1f} us")
    print(f"{args.seats} seats, {args.cards} cards, shuffle proof {args.rounds} rounds; medians of {args.runs} runs; "
          f"CPU = thread time\n")
    for proofs in (False, True):
        results = [run_hand(args.seats, args.cards, proofs, args.rounds, bytes([r])) for r in range(args.runs)]
        critical = statistics.median(r["critical"] for r in results)
        print(f"proofs {'on ' if proofs else 'off'}: critical path {critical:.3f} s  "
              f"({critical / mult:,.0f} x one mult)")
        for seat in range(args.seats):
            seat_cpu = statistics.median(r["cpu"][seat] for r in results)
            seat_mults = statistics.median(r["mults"][seat] for r in results)
            ratio = seat_cpu / (seat_mults * mult)
            print(f"  seat {seat}: CPU {seat_cpu:.3f} s, {seat_mults:,.0f} scalar mults, "
                  f"CPU / (mults x one mult) = {ratio:.2f}")
        total_cpu = statistics.median(sum(r["cpu"]) for r in results)
        total_mults = statistics.median(sum(r["mults"]) for r in results)
        print(f"  all seats: CPU {total_cpu:.3f} s, {total_mults:,.0f} mults, overhead ratio {total_cpu / (total_mults * mult):.2f}\n")


if __name__ == "__main__":
    main()
