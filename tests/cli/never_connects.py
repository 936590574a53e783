"""A joiner that takes a seat and then never connects to the mesh (its port listens but
never accepts): ``never_connects.py CODE HOST:PORT``. Killed by the test."""

from __future__ import annotations

import socket
import sys

import trio

from p2p_sasaki.protocol.net import Identity, TableCode, join_table


async def main() -> None:
    code = TableCode.parse(sys.argv[1])
    host, _, port = sys.argv[2].rpartition(":")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(0)
    await join_table(Identity.generate(), code, (host, int(port)), silent.getsockname()[1], mesh_host="127.0.0.1")
    print("seated", flush=True)
    await trio.sleep(120)


trio.run(main)
