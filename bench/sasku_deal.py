"""One Sasku deal at a table, four TableSessions in this process (in-order delivery, no
sockets): what a deal costs on the wire and in CPU with the mental-poker deck, its shuffle
arguments and the hidden-card proofs (docs/protocol.md, "Sasku at the table").

Bots: each gives whenever it may (so most deals see a picture given), passes 60% of its
bidding turns, otherwise answers at random. Per seed: the transcript's bytes and
envelopes, the hand-overs, the actions (and returns) that carry a hidden-card proof and the
proofs' msgpack bytes, and the CPU time of the four peers together (process time; a shared
machine moves it).

Usage: python bench/sasku_deal.py [--seeds 3] [--no-proofs]
"""

from __future__ import annotations

import argparse
import random
import time

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import IdentityKey, SeededEntropy
from p2p_sasaki.protocol.messages import HandOver, TableAction, decode_envelope
from p2p_sasaki.protocol.messages.wire import pack
from p2p_sasaki.protocol.sasku_game import GiveBack, GiveCall, SaskuGame
from p2p_sasaki.protocol.session import Record, TableConfig, TableSession
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, split_records
from p2p_sasaki.sasku.deal import Give, Pass
from p2p_sasaki.sasku.options import SaskuOptions


def choose(legal: list, rng: random.Random):
    for kind in (GiveCall, Give, GiveBack):
        chosen = [a for a in legal if isinstance(a, kind)]
        if chosen:
            return chosen[0]
    passes = [a for a in legal if isinstance(a, Pass)]
    return passes[0] if passes and rng.random() < 0.6 else rng.choice(legal)


def table_sessions(seed: int, proofs: bool) -> tuple[list[IdentityKey], list[TableSession]]:
    """The four peers of a one-deal Sasku table (bench/deal.py deals with them too)."""
    entropy = SeededEntropy(b"sasku-bench-keys")
    keys = [IdentityKey.generate(entropy) for _ in range(4)]
    config = TableConfig(hands=1, game=SaskuGame(SaskuOptions(target=30)), proofs=proofs)
    peers = [TableSession(k, [x.public_key for x in keys], bytes(range(32)), config,
                          rng=SeededEntropy(b"bench%d-%d" % (i, seed))) for i, k in enumerate(keys)]
    return keys, peers


def one_deal(seed: int, proofs: bool) -> tuple[bytes, float]:
    keys, peers = table_sessions(seed, proofs)
    rng, records = random.Random(seed), []
    start = time.process_time()
    for peer in peers:
        peer.start()
    while True:
        moved = False
        for i, peer in enumerate(peers):
            for envelope in peer.take_outgoing():
                moved = True
                for j, other in enumerate(peers):
                    if j != i:
                        other.receive(envelope, keys[i].public_key)
            if i == 0:
                records += [e.data for e in peer.take_events() if isinstance(e, Record)]
            else:
                peer.take_events()
        if moved:
            continue
        acted = False
        for peer in peers:
            if peer.pending_for_me is not None:
                peer.act(choose(peer.legal_actions, rng))
                acted = True
        if acted or any(peer.step() for peer in peers):
            continue
        break
    assert all(peer.finished and peer.blame is None for peer in peers)
    return b"".join(records), time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--no-proofs", action="store_true", help="no shuffle arguments (hidden-card proofs stay)")
    args = parser.parse_args()
    crypto.check_memo.enabled = False   # each peer stands for its own machine, which checks every proof itself
    print("remembered checks off (crypto.check_memo): every seat checks every proof itself")
    for seed in range(args.seeds):
        transcript, cpu = one_deal(seed, not args.no_proofs)
        messages = [decode_envelope(body) for kind, body in split_records(transcript)[1:] if kind == KIND_ENVELOPE]
        types = [m.body.type for m in messages]
        proven = [m.body.payload for m in messages if isinstance(m.body.payload, (TableAction, HandOver))
                  and m.body.payload.proof]
        sizes = sorted(len(pack([c.to_wire() for c in p.proof])) for p in proven)
        verbs = {p.verb if isinstance(p, TableAction) else "return" for p in proven}
        print(f"seed {seed}: transcript {len(transcript):,} B, {len(messages)} envelopes, "
              f"{types.count('deck/hand-over')} hand-overs (each with its lock and strip), {len(proven)} proven "
              f"actions ({', '.join(sorted(verbs)) or 'none'}; proofs {sizes[0] if sizes else 0}-"
              f"{sizes[-1] if sizes else 0} B), CPU {cpu:.2f} s for the four peers ({cpu / 4:.2f} s a peer)")


if __name__ == "__main__":
    main()
