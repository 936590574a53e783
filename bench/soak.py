"""Soak: N tables of four bot peers, H hands each, over the real protocol on 127.0.0.1.

Each table is four forked peer processes (one trio peer each, as in bench/table.py: the
real ``TableSession`` with shuffle proofs unless ``--no-proofs``, the TCP mesh, transcripts
fsync-ed record by record); ``--concurrency`` tables run at once (two cores: 1 or 2).

Reports, over all tables:
  completion      tables whose four peers finished the match alike / tables started
  hands/minute    hands completed (every table's, counted once) per minute of wall time
  worst per-play  the longest time from an acting peer's answer to the slot being complete
                  at every peer (bench/table.py's "per play"), over every play of every table
  peak RSS        each peer process's peak resident memory (ru_maxrss); the largest and median
  audits          every peer's transcript audits clean and complete, and the four of a table
                  are byte-identical

Usage: nice -n 10 python bench/soak.py [--tables 5] [--hands 3] [--concurrency 2]
       [--no-proofs] [--seed 1] [--timeout 900]
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import os
import resource
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio

from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.sasaki_game import SasakiGame
from p2p_sasaki.protocol.session import TableConfig
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasaki.options import TableOptions

_spec = importlib.util.spec_from_file_location("bench_table", Path(__file__).with_name("table.py"))
assert _spec is not None and _spec.loader is not None
bench_table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_table)


def _peer_process(n: int, spec: dict, sock: socket.socket, conn: Any) -> None:
    async def main() -> dict:
        return await bench_table.play_peer(n, spec, trio.SocketListener(trio.socket.from_stdlib_socket(sock)))

    try:
        result = trio.run(main)
        result["rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        conn.send(result)
    except BaseException as exc:  # reported as an unfinished peer
        conn.send({"error": f"{type(exc).__name__}: {exc}",
                   "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss})
    finally:
        conn.close()


def start_table(spec: dict) -> list[tuple[Any, Any]]:
    socks = []
    for _ in range(4):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        socks.append(sock)
    spec["roster"] = TableRoster(spec["table_id"], tuple(
        TableMember(i.public_key, "127.0.0.1", s.getsockname()[1], os.urandom(32))
        for i, s in zip(spec["identities"], socks, strict=False)))
    context = multiprocessing.get_context("fork")
    running = []
    for n in range(4):
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_peer_process, args=(n, spec, socks[n], send), daemon=True)
        process.start()
        send.close()
        running.append((receive, process))
    for sock in socks:
        sock.close()
    return running


def collect_table(running: list[tuple[Any, Any]]) -> list[dict]:
    results = []
    for n, (pipe, process) in enumerate(running):
        try:
            results.append(pipe.recv())
        except EOFError:
            results.append({"error": f"peer {n} died (exit code {process.exitcode})"})
        process.join(timeout=30)
        if process.is_alive():
            process.kill()
            process.join()
    return results


def judge(peers: list[dict], hands: int) -> dict:
    """One table's outcome: finished alike, audits, per-play latencies, RSS."""
    rss = [p.get("rss_kib", 0) for p in peers]
    if any("error" in p for p in peers):
        return {"finished": False, "why": "; ".join(p["error"] for p in peers if "error" in p), "rss": rss,
                "latencies": [], "hands": 0, "audits": False}
    finished = all(p["finished"] for p in peers) and len({tuple(p["totals"]) for p in peers}) == 1
    latencies = bench_table.play_latencies(peers)
    transcripts = [Path(p["transcript"]).read_bytes() for p in peers]
    audits = [audit_table(t) for t in transcripts]
    audited = all(a.ok and a.complete and len(a.scores) == hands for a in audits) and len(set(transcripts)) == 1
    ended = {e[2] for p in peers for e in p["log"] if e[0] == "ended"}
    return {"finished": finished, "why": "" if finished else "; ".join(p["blame"] for p in peers), "rss": rss,
            "latencies": latencies, "hands": len(ended), "audits": audited}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=5)
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=2, help="tables at once (default 2: two cores)")
    parser.add_argument("--no-proofs", dest="proofs", action="store_false")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per table")
    parser.add_argument("--bot", choices=("heuristic", "random"), default="heuristic")
    args = parser.parse_args(argv)
    outcomes: list[dict] = []
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sasaki-soak-") as directory:
        for first in range(0, args.tables, args.concurrency):
            batch = []
            for table in range(first, min(first + args.concurrency, args.tables)):
                entropy = SeededEntropy(b"bench/soak/%d/%d" % (args.seed, table))
                spec = {"seed": args.seed * 1000 + table, "identities": [Identity(entropy(32)) for _ in range(4)],
                        "config": TableConfig(hands=args.hands, game=SasakiGame(TableOptions(lead_card="3H")),
                                              proofs=args.proofs),
                        "bot": args.bot, "dir": directory, "timeout": args.timeout, "label": f"soak-{table}",
                        "table_id": entropy(32)}
                batch.append(start_table(spec))
            for table, running in enumerate(batch, start=first):
                outcome = judge(collect_table(running), args.hands)
                outcomes.append(outcome)
                state = "finished" if outcome["finished"] else f"NOT finished ({outcome['why']})"
                print(f"table {table}: {state}, {outcome['hands']} hand(s), audits "
                      f"{'clean' if outcome['audits'] else 'NOT clean'}, worst play "
                      f"{max(outcome['latencies'], default=0.0) * 1000:.0f} ms, peak RSS "
                      f"{max(outcome['rss']) / 1024:.0f} MiB", flush=True)
    minutes = (time.monotonic() - began) / 60
    finished = sum(o["finished"] for o in outcomes)
    hands = sum(o["hands"] for o in outcomes)
    latencies = [x for o in outcomes for x in o["latencies"]]
    rss = [r for o in outcomes for r in o["rss"] if r]
    print(f"tables {args.tables} x {args.hands} hand(s), {args.concurrency} at once, proofs "
          f"{'on' if args.proofs else 'off'}, {sys.platform}")
    print(f"completion        {finished}/{len(outcomes)} tables finished alike")
    print(f"hands per minute  {hands / minutes:.2f} ({hands} hands in {minutes * 60:.0f} s)")
    print(f"worst per-play    {max(latencies, default=0.0) * 1000:.0f} ms (median "
          f"{statistics.median(latencies) * 1000 if latencies else 0:.0f} ms over {len(latencies)} plays)")
    print(f"peak RSS per peer {max(rss, default=0) / 1024:.1f} MiB max, "
          f"{statistics.median(rss) / 1024 if rss else 0:.1f} MiB median")
    print(f"audits            {sum(o['audits'] for o in outcomes)}/{len(outcomes)} tables: every transcript "
          "audits clean and the four are identical")
    return 0 if finished == len(outcomes) and all(o["audits"] for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
