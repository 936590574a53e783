"""Real mDNS, only inside network namespaces these tests create (design.md, Network).

Each test re-executes ``mdns_scenario.py`` under ``unshare --net --mount``: a
namespace whose only interface is ``lo``, so every mDNS packet of zeroconf and
of avahi stays in it, and it disappears with the process. The scenario refuses
to run if it sees any interface but ``lo``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from p2p_sasaki.protocol.messages import PROTOCOL_VERSION
from tests import namespace

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = Path(__file__).with_name("mdns_scenario.py")


def run_scenario(mode: str, workdir: Path) -> dict:
    return namespace.run_scenario(SCENARIO, mode, workdir, timeout=60)


def test_table_is_found_refuses_a_wrong_code_and_seats_three_joiners(tmp_path):
    report = run_scenario("table", tmp_path)
    nameplate = report["advertised"].split("-")[0]
    [table] = report["browsed"]
    assert table["name"] == report["advertised"]
    assert table["nameplate"] == nameplate and table["addresses"] == ["127.0.0.1"]
    assert table["seats_taken"] == 1 and table["version"] == PROTOCOL_VERSION
    assert report["wrong_code"].startswith(f"the table at 127.0.0.1:{table['port']} refused the code {nameplate}-")
    assert report["wrong_code"].endswith(": wrong code")
    assert report["rosters_agree"] and report["roster_size"] == 4
    frames = report["mesh_frames"]
    assert len(frames) == 4
    seats = {f"seat {i}" for i in range(4)}
    assert all(len(got) == 3 and set(got) < seats for got in frames.values())


def test_avahi_browse_sees_the_table_and_zeroconf_sees_avahi(tmp_path):
    missing = [tool for tool in ("avahi-browse", "avahi-publish-service", "avahi-daemon", "dbus-daemon")
               if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (apt-get install avahi-utils avahi-daemon)")
    report = run_scenario("avahi", tmp_path)
    assert report["avahi_browse_rc"] == 0
    resolved = [line.split(";") for line in report["avahi_browse"] if line.startswith("=;")]
    assert len(resolved) == 1, report["avahi_browse"]
    fields = resolved[0]
    # =;interface;protocol;name;type;domain;host;address;port;txt
    assert fields[1:6] == ["lo", "IPv4", report["advertised"], "_sasaki._tcp", "local"]
    assert fields[7:9] == ["127.0.0.1", "40042"]
    assert sorted(fields[9].split(" ")) == ['"n=42"', '"p=40042"', '"s=2"', f'"v={PROTOCOL_VERSION}"']
    assert report["zeroconf_saw"] == [
        {"name": "9-avahi", "nameplate": "9", "port": 40009, "seats_taken": 3, "addresses": ["127.0.0.1"]}
    ]
