"""Real-mDNS scenarios, run by test_mdns_namespace.py INSIDE a fresh network namespace.

    unshare --net --mount python tests/net/mdns_scenario.py table|avahi WORKDIR

The namespace has only ``lo`` (brought up here), so no packet can leave the
machine whatever zeroconf or avahi do; the mount namespace gives avahi-daemon a
private /run/avahi-daemon. The last line printed is a JSON report.

* ``table``: a creator advertises a 4-seat table; it is found by browsing,
  a wrong code is refused on both sides, three joiners find it by its nameplate
  and join with the code, and the four peers form the mesh and exchange frames.
* ``avahi``: a private dbus-daemon and avahi-daemon run in the namespace;
  ``avahi-browse -rtp _sasaki._tcp`` must see our advertised table, and our
  browser must see a service published with ``avahi-publish-service``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import trio

from p2p_sasaki.protocol.messages import PROTOCOL_VERSION
from p2p_sasaki.protocol.net.discovery import advertise_table, browse_tables
from p2p_sasaki.protocol.net.identity import Identity
from p2p_sasaki.protocol.net.join import (
    HostEvent,
    MemberJoined,
    TableCode,
    WrongCodeError,
    find_and_join_table,
    host_table,
)
from p2p_sasaki.protocol.net.mesh import Backoff, open_mesh

LOOPBACK = ["127.0.0.1"]


def assert_isolated() -> None:
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
    names = [line.split(":")[1].strip() for line in links.splitlines()]
    if names != ["lo"]:
        sys.exit(f"refusing to run: this namespace has interfaces {names}, expected only lo")
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)


async def table_scenario() -> dict[str, object]:
    report: dict[str, object] = {}
    started = time.monotonic()
    creator = Identity.generate()
    code = TableCode.generate()
    join_listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    join_port = join_listeners[0].socket.getsockname()[1]
    mesh_listeners = {}
    identities = [creator] + [Identity.generate() for _ in range(3)]
    for identity in identities:
        mesh_listeners[identity.public_key] = await trio.open_tcp_listeners(0, host="127.0.0.1")

    def mesh_port(identity: Identity) -> int:
        return mesh_listeners[identity.public_key][0].socket.getsockname()[1]

    rosters = {}
    seat_updates_send, seat_updates = trio.open_memory_channel[int](100)

    def on_event(event: HostEvent) -> None:
        if isinstance(event, MemberJoined):
            seat_updates_send.send_nowait(event.seats_taken)

    async with advertise_table(code.nameplate, join_port, interfaces=LOOPBACK) as advertisement:
        report["advertised"] = advertisement.name
        async with trio.open_nursery() as nursery:

            async def host() -> None:
                rosters[creator.public_key] = await host_table(
                    creator, code, mesh_port(creator), join_listeners, on_event=on_event, handshake_timeout=5
                )
                seat_updates_send.close()

            async def keep_hint_current() -> None:
                async for seats in seat_updates:
                    await advertisement.update(seats)

            nursery.start_soon(host)
            nursery.start_soon(keep_hint_current)

            tables = await browse_tables(5, interfaces=LOOPBACK, stop_when=lambda ad: ad.name == advertisement.name)
            report["browsed"] = [
                {"name": t.name, "nameplate": t.nameplate, "port": t.port, "addresses": list(t.addresses),
                 "seats_taken": t.seats_taken, "version": t.version}
                for t in tables
            ]
            wrong = TableCode(code.nameplate, (code.words[1], code.words[0]) if code.words[0] != code.words[1]
                              else (code.words[0], "otter" if code.words[0] != "otter" else "panda"))
            try:
                await find_and_join_table(Identity.generate(), wrong, 9, interfaces=LOOPBACK, browse_timeout=5)
                report["wrong_code"] = "admitted!"
            except WrongCodeError as exc:
                report["wrong_code"] = str(exc)

            async def join(identity: Identity) -> None:
                rosters[identity.public_key] = await find_and_join_table(
                    identity, code, mesh_port(identity), interfaces=LOOPBACK, browse_timeout=5
                )

            for identity in identities[1:]:
                nursery.start_soon(join, identity)
        report["rosters_agree"] = len({r.keys for r in rosters.values()}) == 1 and len(rosters) == 4
        report["roster_size"] = len(rosters[creator.public_key].members)

    # The table is full: the creator advertises no more. Now the mesh.
    options = dict(backoff=Backoff(0.05, 0.5), heartbeat=1.0, dead_after=5.0)
    received: dict[bytes, list[bytes]] = {}
    async with trio.open_nursery() as nursery:
        meshes = []
        for identity in identities:
            roster = rosters[identity.public_key]
            mesh = await nursery.start(_run_mesh, identity, roster, mesh_listeners[identity.public_key], options)
            meshes.append(mesh)
        with trio.fail_after(10):
            for mesh in meshes:
                await mesh.wait_connected()
            for index, mesh in enumerate(meshes):
                await mesh.broadcast(f"seat {index}".encode())
            for mesh in meshes:
                received[mesh.key] = sorted([(await mesh.received.receive())[1] for _ in range(3)])
        nursery.cancel_scope.cancel()
    report["mesh_frames"] = {key[:4].hex(): [f.decode() for f in frames] for key, frames in received.items()}
    report["seconds"] = round(time.monotonic() - started, 2)
    return report


async def _run_mesh(identity, roster, listeners, options, *, task_status):
    async with open_mesh(identity, roster, listeners, **options) as mesh:
        task_status.started(mesh)
        await trio.sleep_forever()


def start_avahi(workdir: Path) -> tuple[list[subprocess.Popen[bytes]], dict[str, str]]:
    """A private system bus and avahi-daemon bound to lo, as children of this process."""
    bus = workdir / "system_bus_socket"
    (workdir / "dbus.conf").write_text(f"""\
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={bus}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/> <allow own="*"/> <allow send_destination="*"/> <allow receive_sender="*"/>
  </policy>
</busconfig>
""")
    (workdir / "avahi.conf").write_text("""[server]
host-name=sasaki-avahi-test
use-ipv4=yes
use-ipv6=no
allow-interfaces=lo
enable-dbus=yes
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
publish-addresses=yes
""")
    # avahi-daemon keeps its pid file in /run/avahi-daemon: give it a private one.
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)
    Path("/run/avahi-daemon").mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run/avahi-daemon"], check=True)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={bus}")
    children = [subprocess.Popen(["dbus-daemon", f"--config-file={workdir / 'dbus.conf'}", "--nofork"],
                                 stderr=(workdir / "dbus-daemon.log").open("wb"))]
    deadline = time.monotonic() + 10
    while not bus.exists():
        if time.monotonic() > deadline:
            raise RuntimeError("dbus-daemon did not start")
        time.sleep(0.05)
    children.append(subprocess.Popen(
        ["avahi-daemon", "-f", str(workdir / "avahi.conf"), "--no-chroot", "--no-drop-root", "--no-rlimits"],
        env=env, stdout=subprocess.DEVNULL, stderr=(workdir / "avahi-daemon.log").open("wb"),
    ))
    while subprocess.run(["avahi-daemon", "--check"], env=env).returncode != 0:
        if time.monotonic() > deadline or children[-1].poll() is not None:
            raise RuntimeError("avahi-daemon did not start: " + (workdir / "avahi-daemon.log").read_text())
        time.sleep(0.05)
    return children, env


async def avahi_scenario(workdir: Path) -> dict[str, object]:
    report: dict[str, object] = {}
    children, env = start_avahi(workdir)
    try:
        async with advertise_table("42", 40042, interfaces=LOOPBACK, seats_taken=2) as advertisement:
            report["advertised"] = advertisement.name
            result = await trio.run_process(
                ["avahi-browse", "--resolve", "--terminate", "--parsable", "_sasaki._tcp"],
                capture_stdout=True, capture_stderr=True, env=env, check=False,
            )
            report["avahi_browse_rc"] = result.returncode
            report["avahi_browse"] = result.stdout.decode().splitlines()
        publisher = await trio.lowlevel.open_process(
            ["avahi-publish-service", "9-avahi", "_sasaki._tcp", "40009", f"v={PROTOCOL_VERSION}", "n=9", "s=3",
             "p=40009"], env=env
        )
        try:
            tables = await browse_tables(6, interfaces=LOOPBACK, stop_when=lambda ad: ad.name == "9-avahi")
            report["zeroconf_saw"] = [
                {"name": t.name, "nameplate": t.nameplate, "port": t.port, "seats_taken": t.seats_taken,
                 "addresses": list(t.addresses)}
                for t in tables
            ]
        finally:
            publisher.terminate()
            await publisher.wait()
    finally:
        for child in reversed(children):
            child.terminate()
            child.wait(5)
    return report


def main() -> None:
    mode, workdir = sys.argv[1], Path(sys.argv[2])
    assert_isolated()
    if mode == "table":
        report = trio.run(table_scenario)
    elif mode == "avahi":
        report = trio.run(avahi_scenario, workdir)
    else:
        sys.exit(f"unknown scenario {mode!r}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
