"""A tournament round's board (protocol/board.py) prepared by P players, with shuffle arguments:
what it costs, and how it grows with P.

The same discrete-event replay as bench/deal.py (its ``replay``): each player has ``--cores``
cores (one laptop each), messages arrive the moment they are sent, the session's own work is
sequential, its proof jobs go to any free core, and every step costs the CPU time it took
here. For each P (4, 8, 12, 16, 32 by default; straight seating, P mod 4 byes):

  - the critical path: the time until every player holds its seat's cards, every hop,
    argument and strip checked (``BoardDealt``), in seconds and in units of one Ed25519
    ``crypto_scalarmult_ed25519_noclamp`` timed in this run;
  - CPU and variable-base multiplications of the busiest player;
  - the bytes of the board's messages up to the deal, then the end: every table's done and
    every key, and the reveal at one player (its check of every key and the deal read);
  - the audit of the board file (audit_board: every argument, strip, done and key).

Usage: python bench/tournament.py [--players 4 8 12 16 32] [--cores 1] [--runs 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # bench.deal (after the installed package)

from bench.deal import Seat, clock, ed25519_unit, replay, ristretto_mult  # noqa: E402
from p2p_sasaki.protocol import crypto  # noqa: E402
from p2p_sasaki.protocol.board import BoardDealt, BoardSession, Seating, Violation, board_id  # noqa: E402
from p2p_sasaki.protocol.board_audit import audit_board, board_file, board_header  # noqa: E402
from p2p_sasaki.protocol.crypto import IdentityKey, SeededEntropy  # noqa: E402

TOURNAMENT = bytes(32)
TARGET_16 = 1.5   # seconds of critical path for 16 players (issue 21)


@dataclass(frozen=True)
class BoardFigures:
    players: int
    critical: float
    cpu: float
    mults: int
    deal_bytes: int
    end_bytes: int
    reveal: float
    audit: float


def straight(players: int) -> Seating:
    tables = tuple(tuple(range(4 * t, 4 * t + 4)) for t in range(players // 4))
    return Seating(tables, tuple(range(4 * len(tables), players)))


def run_board(players: int, cores: int, seed: bytes, cards: int = 36) -> BoardFigures:
    entropy = SeededEntropy(b"keys" + seed)
    ids = [IdentityKey.generate(entropy) for _ in range(players)]
    keys = [i.public_key for i in ids]
    seating = straight(players)
    bid = board_id(TOURNAMENT, 1, seating, keys)
    sessions = [BoardSession(players, p, ids[p], keys, bid, seating, cards,
                             rng=SeededEntropy(seed + p.to_bytes(2, "big"))) for p in range(players)]

    def on_event(seat: Seat, event: object, end: float) -> None:
        if isinstance(event, Violation):
            raise SystemExit(f"unexpected violation: {event}")
        if isinstance(event, BoardDealt):
            seat.dealt_at = end

    seats, sent = replay(sessions, cores, on_event)
    if any(seat.dealt_at is None for seat in seats):
        raise SystemExit("the board was not dealt")
    deal_bytes = sum(len(e) for e in sent)
    # the end, all at once: every table's done, then the keys (each player checks every key)
    end_bytes = 0
    queue: list[tuple[int, bytes]] = []
    for t, table in enumerate(seating.tables):
        for p in table:
            queue += [(p, e) for e in sessions[p].done(t, bytes([t]) * 32, (0, 0))]
    reveal = 0.0
    while queue:
        sender, envelope = queue.pop(0)
        end_bytes += len(envelope)
        for p, session in enumerate(sessions):
            if p != sender:
                t0 = clock()
                session.receive(envelope)
                if p == 0:
                    reveal += clock() - t0
                queue += [(p, e) for e in session.take_outgoing()]
    if any(s.revealed() is None or s.failed is not None for s in sessions):
        raise SystemExit("the board was not revealed")
    data = board_file(board_header(TOURNAMENT, 1, sessions[0]), sessions[0])
    t0 = clock()
    audit = audit_board(data)
    audited = clock() - t0
    if not audit.ok:
        raise SystemExit(f"the board's audit failed: {audit.blame}")
    return BoardFigures(players, max(s.dealt_at or 0.0 for s in seats), max(s.cpu for s in seats),
                        max(s.mults for s in seats), deal_bytes, end_bytes, reveal, audited)


def summary(players: int, cores: int, runs: int) -> dict[str, float]:
    results = [run_board(players, cores, bytes([r])) for r in range(runs)]
    return {name: statistics.median(getattr(r, name) for r in results)
            for name in ("critical", "cpu", "mults", "deal_bytes", "end_bytes", "reveal", "audit")}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 8, 12, 16, 32])
    parser.add_argument("--cores", type=int, default=1, help="cores per player (default 1)")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    crypto.check_memo.enabled = False   # each player stands for its own machine, which checks every proof itself
    crypto.shuffle_generators(36)   # one-time per process
    unit, mult = ed25519_unit(), ristretto_mult()
    print(f"unit (this run, median of 5): one Ed25519 crypto_scalarmult_ed25519_noclamp = {unit * 1e6:.1f} us; "
          f"one ristretto255 scalarmult = {mult * 1e6:.1f} us ({mult / unit:.2f} units)")
    print(f"a board of 36 cards, proofs on, {args.cores} core(s) a player, medians of {args.runs} run(s); "
          "CPU = thread time; 'per player' = the busiest; remembered checks off (crypto.check_memo): every "
          "player checks every proof itself\n")
    previous: tuple[int, float] | None = None
    figures: dict[int, dict[str, float]] = {}
    for players in args.players:
        s = figures[players] = summary(players, args.cores, args.runs)
        growth = ""
        if previous is not None:
            growth = (f"; x{s['critical'] / previous[1]:.2f} critical for x{players / previous[0]:.2f} players")
        print(f"{players:3d} players: critical path {s['critical']:.3f} s = {s['critical'] / unit:,.0f} units; "
              f"CPU per player {s['cpu']:.3f} s = {s['cpu'] / unit:,.0f} units; {s['mults']:,.0f} mults per "
              f"player; board bytes to the deal {s['deal_bytes']:,.0f}, done+keys {s['end_bytes']:,.0f}; "
              f"reveal at one player {s['reveal']:.3f} s; audit of the board file {s['audit']:.3f} s{growth}")
        previous = (players, s["critical"])
    if 16 in figures:
        critical = figures[16]["critical"]
        print(f"\ngoal: 16 players prepared in <= {TARGET_16} s of critical path: {critical:.3f} s "
              f"({'met' if critical <= TARGET_16 else 'NOT met'})")


if __name__ == "__main__":
    main()
