"""Hostile connections against one mesh member, measured as the issue measured them: the
member's resident memory (VmRSS) and open descriptors before, at the peak, and after.

A separate attacker process opens ``--connections`` TCP connections to the member's mesh
port on 127.0.0.1, sends each a length prefix announcing a 1 MiB frame and then as much of
its ~1 MB payload as the member accepts, never authenticates, holds them ``--hold`` seconds
and closes them.

Usage: nice -n 10 python bench/hostile.py [--connections 200] [--hold 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import secrets
import socket
import struct
import sys
import time
from collections.abc import Sequence

import trio

from p2p_sasaki.protocol.net.identity import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.mesh import open_mesh


def rss_kib() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def attacker(port: int, connections: int, hold: float) -> None:
    payload = struct.pack(">I", 1 << 20) + bytes(1_000_000)
    socks = []
    for _ in range(connections):
        sock = socket.socket()
        try:
            sock.connect(("127.0.0.1", port))
        except OSError:
            continue
        sock.setblocking(False)
        socks.append(sock)
    deadline = time.monotonic() + hold
    sent = {id(s): 0 for s in socks}
    while time.monotonic() < deadline:
        for sock in socks:
            if sent[id(sock)] < len(payload):
                try:
                    sent[id(sock)] += sock.send(payload[sent[id(sock)]:sent[id(sock)] + 65536])
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    sent[id(sock)] = len(payload)    # closed by the member
        time.sleep(0.01)
    for sock in socks:
        sock.close()


async def measure(connections: int, hold: float) -> dict[str, float]:
    identities = sorted((Identity.generate() for _ in range(2)), key=lambda i: i.public_key)
    listeners = [await trio.open_tcp_listeners(0, host="127.0.0.1", backlog=512) for _ in identities]
    roster = TableRoster(secrets.token_bytes(32), tuple(
        TableMember(i.public_key, "127.0.0.1", ls[0].socket.getsockname()[1], os.urandom(32))
        for i, ls in zip(identities, listeners, strict=False)))
    port = roster.members[1].port
    async with open_mesh(identities[1], roster, listeners[1]) as mesh:
        await trio.sleep(0.5)
        before, fds_before = rss_kib(), descriptors()
        process = multiprocessing.get_context("fork").Process(target=attacker, args=(port, connections, hold))
        process.start()
        peak, peak_fds = before, fds_before
        while process.is_alive():
            peak, peak_fds = max(peak, rss_kib()), max(peak_fds, descriptors())
            await trio.sleep(0.05)
        process.join()
        process.close()      # its sentinel descriptor
        await trio.sleep(mesh.handshake_timeout + 0.5)
        after, fds_after = rss_kib(), descriptors()
        return {"before": before, "peak": peak, "after": after, "fds_before": fds_before, "fds_peak": peak_fds,
                "fds_after": fds_after, "failed": mesh.failed_handshakes}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--hold", type=float, default=3.0)
    args = parser.parse_args(argv)
    m = trio.run(measure, args.connections, args.hold)
    print(f"{args.connections} unauthenticated connections, each announcing a 1 MiB frame")
    print(f"RSS         {m['before'] / 1024:.1f} MiB before, {m['peak'] / 1024:.1f} MiB peak "
          f"(+{(m['peak'] - m['before']) / 1024:.1f}), {m['after'] / 1024:.1f} MiB after")
    print(f"descriptors {m['fds_before']} before, {m['fds_peak']} peak, {m['fds_after']} after")
    print(f"failed handshakes counted: {m['failed']}")
    return 0 if m["peak"] - m["before"] <= 8 * 1024 and m["fds_after"] <= m["fds_before"] else 1


if __name__ == "__main__":
    sys.exit(main())
