"""A full bot hand over the real protocol on loopback, against a trusted-dealer baseline.

Each run plays one hand (``TableConfig(hands=1)``, setup included) twice over the real
trio mesh on 127.0.0.1, each peer driven by ``protocol.net.table.run_table`` with a
seeded bot per seat and its transcript fsync-ed record by record:

  real      ``protocol.session.TableSession``: seating, the mental-poker deal (its
            shuffle arguments on unless ``--no-proofs``), every play a signed
            ``table/action`` with its card openings (DLEQ proofs), the key reveal at the end;
  baseline  the same ``TableSession`` with a trusted test dealer
            (``protocol.dealing.TrustedDealer``, named in the header): the same slot machine (the same
            setup slots, the same signed ``table/action`` per answer with ``prev`` = the agreed
            chain hash, relayed by every peer on first receipt, the slot complete when every
            expected signer's message is in, the records, the hidden-hand engine on every
            peer), but the cards come from a trusted in-process dealer: no deck slots, no
            openings or proofs, no key reveal (the dealer shows the deal when the hand ends).
            The dealer deals the very cards the real hand dealt (read from its audit), and the
            bots are seeded per seat, so both variants play the same hand, play for play.

Figures (each the median over ``--runs``; a noisy shared machine):
  dealt        session start (mesh connected) -> the last peer holds its hand (Dealt)
  per play     an acting peer hands its answer to its session (``act``: signing, openings,
               its records, then the broadcast) -> the slot is complete at every peer (its
               records are on disk there); a window with several signers counts from its
               last answer. Median and p90 over every answered slot of the hand.
  hand         session start -> the last peer's HandEnded
  messages     signed messages in the transcript; frames and bytes through the mesh
               (every peer's ``mesh.statistics()``: frames sent, bytes with length prefixes)
  audit        ``audit_table`` of the real transcript (wall time, this process)

Peers: by default four processes (``--mode processes``; forked, each one trio peer, the
closest to four laptops: every peer has its own interpreter and GIL, the OS schedules them
on this machine's cores), or four trio tasks in this process (``--mode tasks``; one GIL).
Timestamps are CLOCK_MONOTONIC, one clock for every process of the machine.

The cost of the fair windows per hand (docs/architecture.md, "Windows and the protocol"): the
"whole hand" of ``--pace fair`` minus that of ``--pace none`` (same seeds, so the same hand).

Usage: python bench/table.py [--runs 3] [--no-proofs] [--pace none|fair]
       [--bot heuristic|random] [--seed 1] [--mode processes|tasks]
"""

from __future__ import annotations

import argparse
import multiprocessing
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from random import Random
from typing import Any

import trio  # noqa: E402

from p2p_sasaki.protocol import crypto  # noqa: E402
from p2p_sasaki.protocol.crypto import SeededEntropy  # noqa: E402
from p2p_sasaki.protocol.dealing import TrustedDealer  # noqa: E402
from p2p_sasaki.protocol.messages import decode_envelope  # noqa: E402
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster  # noqa: E402
from p2p_sasaki.protocol.net.table import Turn, run_table  # noqa: E402
from p2p_sasaki.protocol.pace import NO_PACE  # noqa: E402
from p2p_sasaki.protocol.sasaki_game import FAIR_PACE, SasakiGame  # noqa: E402
from p2p_sasaki.protocol.session import Dealt, HandEnded, Record, TableConfig, TableSession  # noqa: E402
from p2p_sasaki.protocol.table_audit import audit_table  # noqa: E402
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, split_records  # noqa: E402
from p2p_sasaki.sasaki.bots import HeuristicBot, RandomBot  # noqa: E402
from p2p_sasaki.sasaki.options import TableOptions  # noqa: E402

MEMBER_NONCE = bytes(range(200, 232))  # a member's join nonce (fresh in real joins)


def clock() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)


BOTS = {"heuristic": HeuristicBot, "random": RandomBot}
PACES = {"none": NO_PACE, "fair": FAIR_PACE}   # the same pacing on both sides of the baseline

# ---------------------------------------------------------------------------------------
# One peer
# ---------------------------------------------------------------------------------------


class SeatBots:
    """A player that answers with a bot of ``kind`` seeded by (seed, seat): seating is only
    known once the table sits, and the same seat plays the same way in both variants. Its
    turn plays are paced like any bot's (``--pace fair``)."""

    is_bot = True

    def __init__(self, kind: str, seed: int) -> None:
        self.kind, self.seed = kind, seed
        self.bots: dict[int, Any] = {}

    async def decide(self, turn: Turn) -> Any:
        bot = self.bots.get(turn.seat)
        if bot is None:
            bot = self.bots[turn.seat] = BOTS[self.kind](Random(f"{self.seed}/{turn.seat}"))
        return bot.choose(turn.view, turn.legal)


def _slot_of(record: bytes) -> tuple[int, int] | None:
    for kind, data in split_records(record):
        if kind == KIND_ENVELOPE:
            body = decode_envelope(data).body
            return body.hand, body.slot
    return None


async def play_peer(n: int, spec: dict, listener: trio.SocketListener) -> dict:
    """Run peer ``n`` of the table in ``spec``; return its timestamped log and counters."""
    log: list[tuple] = []

    def factory(identity, roster, config):
        rng = SeededEntropy(b"bench/table/%d/%d" % (spec["seed"], n))
        session = TableSession(identity, roster.keys, roster.table_id, config, rng)
        real_start, real_act = session.start, session.act

        def start() -> None:
            log.append(("start", clock()))
            real_start()

        def act(action) -> None:
            log.append(("act", clock(), session.hand_no, session.slot))
            real_act(action)

        session.start, session.act = start, act
        return session

    def on_event(event: Any, session: Any) -> None:
        now = clock()
        if isinstance(event, Record):
            where = _slot_of(event.data)
            if where is not None:
                log.append(("record", now, *where))
        elif isinstance(event, Dealt):
            log.append(("dealt", now, event.hand_no))
        elif isinstance(event, HandEnded):
            log.append(("ended", now, event.hand_no))

    transcript = Path(spec["dir"]) / f"{spec['label']}-{n}.sasaki"
    with trio.fail_after(spec["timeout"]):
        result = await run_table(
            spec["identities"][n], spec["roster"], spec["config"], player=SeatBots(spec["bot"], spec["seed"]),
            transcript_path=transcript, listeners=[listener], on_event=on_event, session_factory=factory,
            linger=0.5)
    peers = result.mesh.peers.values() if result.mesh is not None else ()
    return {"log": log, "finished": result.finished, "totals": result.totals, "blame": repr(result.blame),
            "frames": sum(p.frames_sent for p in peers), "bytes": sum(p.bytes_sent for p in peers),
            "transcript": str(transcript)}


def _peer_process(n: int, spec: dict, sock: socket.socket, conn) -> None:
    async def main() -> dict:
        return await play_peer(n, spec, trio.SocketListener(trio.socket.from_stdlib_socket(sock)))

    try:
        conn.send(trio.run(main))
    except BaseException as exc:  # report, the parent fails the run
        conn.send({"error": f"{type(exc).__name__}: {exc}"})
    finally:
        conn.close()


def loopback_listeners(spec: dict) -> list[socket.socket]:
    """Four listening sockets on 127.0.0.1, opened here so that ``spec["roster"]`` (set
    from ``spec["table_id"]`` and ``spec["identities"]``) knows their ports."""
    socks = []
    for _ in range(4):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        socks.append(sock)
    spec["roster"] = TableRoster(spec["table_id"], tuple(
        TableMember(i.public_key, "127.0.0.1", s.getsockname()[1], MEMBER_NONCE)
        for i, s in zip(spec["identities"], socks, strict=True)))
    return socks


def run_forked(peer_process: Callable[..., None], spec: dict, socks: list[socket.socket]) -> list[dict]:
    """Each of the four peers in a forked process, ``peer_process(n, spec, sock, conn)``,
    which sends one dict on ``conn`` (with an "error" key where it failed); their dicts in
    seat order, or SystemExit naming every peer that failed."""
    context = multiprocessing.get_context("fork")
    pipes, processes = [], []
    for n in range(4):
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=peer_process, args=(n, spec, socks[n], send), daemon=True)
        process.start()
        send.close()
        pipes.append(receive)
        processes.append(process)
    for sock in socks:
        sock.close()
    results = []
    for n, (pipe, process) in enumerate(zip(pipes, processes, strict=True)):
        try:
            results.append(pipe.recv())
        except EOFError:
            results.append({"error": f"peer {n} died (exit code {process.exitcode})"})
        process.join(timeout=30)
    errors = [r["error"] for r in results if "error" in r]
    if errors:
        raise SystemExit("a peer failed: " + "; ".join(errors))
    return results


def play_table(spec: dict, mode: str) -> list[dict]:
    """Four peers on 127.0.0.1, as tasks of this process or as forked processes."""
    socks = loopback_listeners(spec)
    if mode == "tasks":
        results: list[dict] = [{}] * 4

        async def main() -> None:
            async def one(n: int) -> None:
                listener = trio.SocketListener(trio.socket.from_stdlib_socket(socks[n]))
                results[n] = await play_peer(n, spec, listener)

            async with trio.open_nursery() as nursery:
                for n in range(4):
                    nursery.start_soon(one, n)

        trio.run(main)
        return results
    return run_forked(_peer_process, spec, socks)


# ---------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------


def figures(peers: list[dict]) -> dict:
    if not all(p["finished"] for p in peers) or len({tuple(p["totals"]) for p in peers}) != 1:
        raise SystemExit("the hand did not finish alike at every peer: " + "; ".join(p["blame"] for p in peers))
    start = min(e[1] for p in peers for e in p["log"] if e[0] == "start")
    dealt = max(e[1] for p in peers for e in p["log"] if e[0] == "dealt")
    ended = max(e[1] for p in peers for e in p["log"] if e[0] == "ended")
    latencies = play_latencies(peers)
    transcript = Path(peers[0]["transcript"]).read_bytes()
    identical = all(Path(p["transcript"]).read_bytes() == transcript for p in peers)
    messages = sum(1 for kind, _ in split_records(transcript) if kind == KIND_ENVELOPE)
    return {"dealt": dealt - start, "hand": ended - start, "plays": len(latencies),
            "play_median": statistics.median(latencies), "play_p90": _p90(latencies),
            "messages": messages, "frames": sum(p["frames"] for p in peers),
            "bytes": sum(p["bytes"] for p in peers), "identical": identical, "totals": tuple(peers[0]["totals"]),
            "transcript": transcript}


def play_latencies(peers: list[dict]) -> list[float]:
    """Per play, in slot order: from the acting peer's answer ("act") to the slot's record
    being written at every peer ("record"); a slot some peer never recorded is left out."""
    acted: dict[tuple[int, int], float] = {}
    complete: list[dict[tuple[int, int], float]] = []
    for p in peers:
        done: dict[tuple[int, int], float] = {}
        for e in p["log"]:
            if e[0] == "act":
                acted[e[2:]] = max(acted.get(e[2:], 0.0), e[1])
            elif e[0] == "record":
                done[e[2:]] = max(done.get(e[2:], 0.0), e[1])
        complete.append(done)
    return [max(done[slot] for done in complete) - sent for slot, sent in sorted(acted.items())
            if all(slot in done for done in complete)]


def _p90(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[8] if len(values) > 1 else values[0]


def one_run(run: int, args: argparse.Namespace, directory: str) -> tuple[dict, dict]:
    seed = args.seed * 1000 + run
    entropy = SeededEntropy(b"bench/table/identities/%d" % seed)
    identities = [Identity(entropy(32)) for _ in range(4)]
    config = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3H")), proofs=args.proofs,
                         pace=PACES[args.pace])
    spec = {"seed": seed, "identities": identities, "config": config, "bot": args.bot, "dir": directory,
            "timeout": args.timeout}
    real = figures(play_table(dict(spec, label=f"real-{run}", table_id=entropy(32)), args.mode))
    began = time.perf_counter()
    audit = audit_table(real["transcript"])
    real["audit"] = time.perf_counter() - began
    if not audit.ok or not audit.complete:
        raise SystemExit(f"the real transcript does not pass its audit: {audit.blame}")
    # the dealer deals the real hand's cards: position k of the order goes to seat k mod 4
    orders = [[hand[k % 4][k // 4] for k in range(48)] for hand in audit.hands]
    dealt = replace(config, dealer=TrustedDealer.with_deals(orders).name)
    base = figures(play_table(dict(spec, label=f"base-{run}", table_id=entropy(32), config=dealt), args.mode))
    base["same_hand"] = base["totals"] == real["totals"] and base["plays"] == real["plays"]
    return real, base


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="hands of each variant (default 3); medians")
    parser.add_argument("--no-proofs", dest="proofs", action="store_false", help="deal without shuffle proofs")
    parser.add_argument("--bot", choices=sorted(BOTS), default="heuristic")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", choices=("processes", "tasks"), default="processes",
                        help="four peer processes (default) or four trio tasks in this process")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a peer may take (default 600)")
    parser.add_argument("--pace", choices=sorted(PACES), default="none",
                        help="window pacing of both variants: none (default) or fair (sasaki host's "
                             "defaults: every window answer and bot turn play at a fixed delay)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    crypto.check_memo.enabled = False   # each peer stands for its own machine, which checks every proof itself

    proofs = "shuffle arguments" if args.proofs else "no shuffle arguments"
    print(f"One hand over the real mesh on 127.0.0.1: four peers as {args.mode}, {args.bot} bots, {proofs}, "
          f"window pacing {args.pace} {dict(PACES[args.pace].delays)} ms; medians of {args.runs} run(s); "
          "remembered checks off (crypto.check_memo): every seat checks every proof itself", flush=True)
    reals, bases = [], []
    with tempfile.TemporaryDirectory(prefix="sasaki-bench-") as directory:
        for run in range(args.runs):
            real, base = one_run(run, args, directory)
            reals.append(real)
            bases.append(base)
            print(f"  run {run + 1}: real hand {real['hand']:.3f} s (dealt {real['dealt']:.3f} s, "
                  f"{real['plays']} plays, median {real['play_median'] * 1e3:.1f} ms), audit {real['audit']:.3f} s; "
                  f"baseline hand {base['hand']:.3f} s (median play {base['play_median'] * 1e3:.1f} ms); "
                  f"same hand: {'yes' if base['same_hand'] else 'NO'}", flush=True)

    def med(rows: list[dict], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    def ratio(key: str) -> str:
        b = med(bases, key)
        return f"{med(reals, key) / b:.2f}x" if b else "n/a"

    rows: list[tuple[str, Callable[[list[dict]], str], str]] = [
        ("time to every peer dealt", lambda rs: f"{med(rs, 'dealt'):.3f} s", ratio("dealt")),
        ("per-play latency median", lambda rs: f"{med(rs, 'play_median') * 1e3:.1f} ms", ratio("play_median")),
        ("per-play latency p90", lambda rs: f"{med(rs, 'play_p90') * 1e3:.1f} ms", ratio("play_p90")),
        ("whole hand", lambda rs: f"{med(rs, 'hand'):.3f} s", ratio("hand")),
        ("plays (answered slots)", lambda rs: f"{med(rs, 'plays'):.0f}", ratio("plays")),
        ("signed messages per hand", lambda rs: f"{med(rs, 'messages'):.0f}", ratio("messages")),
        ("mesh frames per hand", lambda rs: f"{med(rs, 'frames'):.0f}", ratio("frames")),
        ("mesh bytes per hand", lambda rs: f"{med(rs, 'bytes'):,.0f}", ratio("bytes")),
    ]
    print()
    print(f"{'':28} {'real':>12} {'baseline':>12} {'ratio':>8}")
    for label, show, r in rows:
        print(f"{label:28} {show(reals):>12} {show(bases):>12} {r:>8}")
    audit = med(reals, "audit")
    print(f"{'audit of the transcript':28} {audit:>10.3f} s {'n/a':>12}")
    play_ratio = med(reals, "play_median") / med(bases, "play_median")
    print()
    print(f"goal per-play latency <= 2x baseline: {play_ratio:.2f}x, "
          f"{'met' if play_ratio <= 2 else 'not met'}")
    print(f"goal audit < 0.5 s: {audit:.3f} s, {'met' if audit < 0.5 else 'not met'}")
    print(f"transcripts identical at every peer: {'yes' if all(r['identical'] for r in reals + bases) else 'NO'}; "
          f"baseline played the same hand: {'yes' if all(b['same_hand'] for b in bases) else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
