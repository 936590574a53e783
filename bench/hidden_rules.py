"""What Sasku's rules on hidden cards cost when proven with the action (protocol/hidden_rules.py).

For each statement a seat proves, at its largest public shape (the most hidden positions
and forbidden cards it can have), prints the median CPU time to make the proof and to check
it, the variable-base multiplications of each, and its bytes, beside the unit: one
libsodium Ed25519 ``crypto_scalarmult_ed25519_noclamp`` timed in this run, just before
each statement's runs (bench/deal.py's unit). Target (issue 19): each proof made and checked in at most 0.05 s.

Usage: python bench/hidden_rules.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # bench.deal (after the installed package)

from bench.deal import MULTS, clock, ed25519_unit, ristretto_mult  # noqa: E402 (counts Group.mul)
from p2p_sasaki.cards import mask_indices  # noqa: E402
from p2p_sasaki.protocol import crypto, hidden_rules  # noqa: E402
from p2p_sasaki.protocol.crypto import G, SeededEntropy  # noqa: E402
from p2p_sasaki.protocol.hidden_rules import HiddenCard, RuleContext, Statement  # noqa: E402
from p2p_sasaki.sasku.trumps import PACK, PLAIN, follow_mask, is_picture, trumps  # noqa: E402

N_CARDS = 36
TABLE = bytes(range(32))
HAND_ID = bytes(32)
PACK_CARDS = tuple(mask_indices(PACK))  # deck card i is the i-th card of the pack
PICTURES = frozenset(i for i, card in enumerate(PACK_CARDS) if is_picture(card))
TRUMPS_C = frozenset(i for i, card in enumerate(PACK_CARDS) if trumps(0) >> card & 1)
CLUBS_PLAIN = frozenset(i for i, card in enumerate(PACK_CARDS) if PLAIN[0] >> card & 1)
assert TRUMPS_C == frozenset(i for i, card in enumerate(PACK_CARDS) if follow_mask(PACK_CARDS[0], 0) >> card & 1)


@dataclass(frozen=True)
class Seat:
    """One seat's locks after the deal: key x on base g, positions 4k + 1."""

    x: int
    base: bytes
    points: tuple[bytes, ...]

    def holding(self, cards: list[int], first: int = 1) -> list[HiddenCard]:
        key = G.mul(self.x, self.base)
        return [HiddenCard(first + 4 * i, self.base, key, G.mul(self.x, self.points[c])) for i, c in enumerate(cards)]


def scenarios(seat: Seat) -> list[tuple[str, Statement]]:
    plain = sorted(set(range(N_CARDS)) - PICTURES)
    not_trump = sorted(set(range(N_CARDS)) - TRUMPS_C)
    not_clubs = sorted(set(range(N_CARDS)) - CLUBS_PLAIN)
    hand = seat.holding(not_trump[:8])
    picture = seat.holding(sorted(PICTURES)[:1])[0]
    others = seat.holding(plain[:8], first=5)
    return [
        ("no-follow, a trump led: 8 hidden, 18 forbidden", hidden_rules.no_follow(hand, TRUMPS_C)),
        ("no-follow, a plain card led: 8 hidden, 6 forbidden", hidden_rules.no_follow(seat.holding(not_clubs[:8]),
                                                                                       CLUBS_PLAIN)),
        ("give: the picture (24 forbidden) + 8 others (12)", hidden_rules.give(picture, others, PICTURES, N_CARDS)),
        ("give, picture shown: 8 others, 12 forbidden", hidden_rules.give(None, others, PICTURES, N_CARDS)),
        ("return: 1 hidden, 12 forbidden", hidden_rules.return_card(others[0], PICTURES)),
        ("nine pictures: 9 hidden, 24 forbidden",
         hidden_rules.nine_pictures(seat.holding(sorted(PICTURES)[:9]), PICTURES, N_CARDS)),
    ]


def measure(action: Callable[..., object], *args: object) -> tuple[object, float, int]:
    before, start = MULTS[0], clock()
    value = action(*args)
    return value, clock() - start, MULTS[0] - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    crypto.check_memo.enabled = False   # each run checks its proof in full
    print(f"one ristretto255 scalarmult = {ristretto_mult() * 1e6:.1f} us; the unit, one Ed25519 "
          "scalarmult_noclamp, is timed again before each statement (the machine is shared); remembered checks "
          "off (crypto.check_memo)")
    entropy = SeededEntropy(b"bench")
    points = crypto.card_points(TABLE, HAND_ID, N_CARDS)
    seat = Seat(crypto.random_scalar(entropy), crypto.base_point(TABLE, HAND_ID), points)
    secrets = {G.mul(seat.x, seat.base): seat.x}
    ctx = RuleContext(TABLE, HAND_ID, 100, 1, bytes(32))
    print(f"{'statement':52} {'unit us':>7} {'make s':>8} {'units':>6} {'mults':>6} "
          f"{'check s':>8} {'units':>6} {'mults':>6} {'total s':>8} {'bytes':>6}")
    for name, statement in scenarios(seat):
        unit = ed25519_unit()
        makes, checks = [], []
        for _ in range(args.runs):
            proof, made, make_mults = measure(hidden_rules.prove, ctx, statement, points, secrets, entropy)
            ok, checked, check_mults = measure(hidden_rules.verify, ctx, statement, points, proof)
            assert ok is True
            assert isinstance(proof, hidden_rules.HiddenRuleProof)
            size = proof.size
            makes.append(made)
            checks.append(checked)
        make, check = statistics.median(makes), statistics.median(checks)
        print(f"{name:52} {unit * 1e6:7.1f} {make:8.4f} {make / unit:6.0f} {make_mults:6d} "
              f"{check:8.4f} {check / unit:6.0f} {check_mults:6d} {make + check:8.4f} {size:6d}")


if __name__ == "__main__":
    main()
