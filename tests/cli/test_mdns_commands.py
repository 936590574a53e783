"""The ``sasaki`` commands over real mDNS, only inside network namespaces these tests
create: each test re-executes ``mdns_cli_scenario.py`` under ``unshare --net --mount``
(only ``lo`` exists there, so the commands keep their default interfaces and no
packet leaves the machine). The scenario reports JSON; the assertions are here.

They need root (CI runs as root) and skip with the reason otherwise.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p_sasaki.protocol.messages import PROTOCOL_VERSION
from tests import namespace

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = Path(__file__).with_name("mdns_cli_scenario.py")
AVAHI_TOOLS = ("avahi-browse", "avahi-daemon", "dbus-daemon")


# Each test reads the report of one scenario (the fixture it asks for); ``table`` is read by two.
REPORTS = {"table_report": "table", "bots_report": "bots", "play_report": "play", "lan_report": "lan"}


@pytest.fixture(scope="module")
def scenarios(request: pytest.FixtureRequest,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, namespace.Scenario]]:
    """Every scenario this run's tests of the module read, started at once, each in a namespace
    of its own: most of a scenario is waiting (a browse's seconds, a paced hand), so they wait
    side by side rather than one after the other."""
    reason = namespace.namespace_unavailable()
    if reason:
        pytest.skip(reason)
    modes = {REPORTS[name] for item in request.session.items if item.path == request.path
             for name in getattr(item, "fixturenames", ()) if name in REPORTS}
    started = {mode: namespace.Scenario(SCENARIO, mode, tmp_path_factory.mktemp(mode)) for mode in sorted(modes)}
    yield started
    for scenario in started.values():
        scenario.kill()


def report_of(scenarios: dict[str, namespace.Scenario], mode: str) -> dict:
    return scenarios[mode].report(timeout=240)


@pytest.fixture(scope="module")
def table_report(scenarios) -> dict:
    """The ``table`` scenario's report, shared by the two tests that read it."""
    return report_of(scenarios, "table")


@pytest.fixture(scope="module")
def bots_report(scenarios) -> dict:
    return report_of(scenarios, "bots")


@pytest.fixture(scope="module")
def play_report(scenarios) -> dict:
    pytest.importorskip("pexpect")
    return report_of(scenarios, "play")


@pytest.fixture(scope="module")
def lan_report(scenarios) -> dict:
    return report_of(scenarios, "lan")


def test_hosted_table_is_listed_refuses_a_wrong_code_and_is_joined_by_three_commands(table_report):
    report = table_report
    code = report["code"]
    nameplate = code.split("-")[0]
    host, port = report["host_address"].split(":")
    assert host == "127.0.0.1"  # the only address in the namespace

    # sasaki tables --json / sasaki tables
    assert report["tables_json"]["rc"] == 0, report["tables_json"]
    [table] = json.loads(report["tables_json"]["stdout"])
    assert table["nameplate"] == nameplate and table["name"].startswith(f"{nameplate}-")
    assert table == {"name": table["name"], "nameplate": nameplate, "seats_taken": 1, "port": int(port),
                     "addresses": ["127.0.0.1"], "version": PROTOCOL_VERSION, "creator": None, "full": False,
                     "game": "sasaki"}
    assert report["tables_text"]["rc"] == 0
    assert report["tables_text"]["stdout"] == f"table {nameplate}: 1 of 4 seats taken, at 127.0.0.1:{port}\n"

    # sasaki join WRONG-CODE: one sentence, non-zero exit; the host reports the attempt once
    wrong = report["wrong"]
    assert wrong["rc"] == 1
    assert wrong["stderr"] == (f"sasaki: the table at 127.0.0.1:{port} refused the code "
                               f"{report['wrong_code']}: wrong code.\n")
    assert report["host_log"].count("tried a wrong code") == 1
    assert "someone at 127.0.0.1 tried a wrong code (1 of 3 allowed).\n" in report["host_log"]

    # three sasaki join CODE --bot, found by mDNS, play the hand with the host
    peers = report["peers"]
    assert [p["rc"] for p in peers] == [0, 0, 0, 0], peers
    assert len({p["totals"] for p in peers}) == 1 and peers[0]["totals"], peers
    assert "joined (4 of 4 seats taken)" in report["host_log"] and "Hand 1 is over" in report["host_log"]
    assert report["transcripts_identical"]
    audit = report["audit"]
    assert audit["rc"] == 0 and audit["ok"] and audit["complete"], audit
    assert len(audit["scores"]) == 1 and sum(audit["totals"]) == 0


def test_avahi_browse_sees_the_table_sasaki_host_advertises(table_report):
    """avahi-browse, an independent mDNS client, run while the host waited for joiners."""
    report = table_report
    nameplate = report["code"].split("-")[0]
    port = report["host_address"].split(":")[1]
    [table] = json.loads(report["tables_json"]["stdout"])
    if "avahi_browse" not in report:
        missing = [tool for tool in AVAHI_TOOLS if shutil.which(tool) is None]
        pytest.skip(f"needs {', '.join(missing)} (apt-get install avahi-utils avahi-daemon)")
    browse = report["avahi_browse"]
    assert browse["rc"] == 0, browse
    resolved = [line.split(";") for line in browse["lines"] if line.startswith("=;")]
    assert len(resolved) == 1, browse["lines"]
    fields = resolved[0]
    # =;interface;protocol;name;type;domain;host;address;port;txt
    assert fields[1:6] == ["lo", "IPv4", table["name"], "_sasaki._tcp", "local"]
    assert fields[7:9] == ["127.0.0.1", port]
    assert sorted(fields[9].split(" ")) == sorted([f'"n={nameplate}"', f'"p={port}"', '"s=1"',
                                                   f'"v={PROTOCOL_VERSION}"'])


def test_tables_with_nothing_advertised_and_host_with_three_bot_processes(bots_report):
    report = bots_report
    assert report["empty_json"] == {"rc": 0, "stdout": "[]\n", "stderr": ""}
    text = report["empty_text"]
    assert text["rc"] == 0 and text["stderr"] == ""
    assert text["stdout"].startswith("No table seen within 1 s. Create one with 'sasaki host'")
    assert text["stdout"].count("\n") == 1

    host = report["host"]
    assert host["rc"] == 0, host["out"][-3000:]
    assert "Started 3 bot peer(s) as local processes." in host["out"]
    assert "Waiting for the bots to join ..." in host["out"]
    assert "joined (4 of 4 seats taken)" in host["out"] and "Hand 1 is over" in host["out"]
    assert len(report["bot_transcripts"]) == 3  # each bot is a peer with its own data dir
    assert report["transcripts_identical"]
    audits = report["audits"]
    assert all(a["rc"] == 0 and a["ok"] and a["complete"] for a in audits), audits
    totals = re.search(r"Match over\. Totals: (.*)\.", host["out"]).group(1)
    assert totals  # and the audit's totals agree with every bot's transcript
    assert len({json.dumps(a["totals"]) for a in audits}) == 1


def test_interactive_play_browses_then_creates_or_joins(play_report):
    report = play_report
    typo = report["typo"]
    assert typo["rc"] == 130   # the input ended (Ctrl-D): docs/usage.md, exit statuses
    lines = typo["out"].rstrip().splitlines()
    assert lines[-2] == ("'7-purple' is not a table code like 7-purple-sausage. Type the code again, "
                         "or press Enter to create a table:")
    assert lines[-1] == "sasaki: no table code typed (end of input); nothing was sent."

    assert report["creator_saw_none"]
    nameplate = report["code"].split("-")[0]
    assert re.search(rf"table {nameplate}: 3 of 4 seats taken, at 127\.0\.0\.1:\d+", report["joiner_saw"])
    for who in ("creator", "joiner"):
        assert report[who]["rc"] == 0, report[who]["out"][-3000:]
    creator, joiner = report["creator"]["out"], report["joiner"]["out"]
    assert "Table code: " in creator and "Started 2 bot peer(s)" in creator
    assert f"You have a seat at table {nameplate} on the local network" in joiner
    totals = {re.search(r"Match over\. Totals: (.*)\.", out).group(1) for out in (creator, joiner)}
    assert len(totals) == 1
    assert report["audit"]["rc"] == 0 and report["audit"]["ok"]


def test_two_tables_with_one_number_a_redrawn_number_and_a_fifth_joiner(lan_report):
    """issue 10, "Tables on one LAN": a creator that sees its number drew another; a joiner
    that sees two tables with its number tries the code on neither until told whose; a fifth
    joiner of a full table is told so; the names are in the signed roster."""
    report = lan_report
    number, codes = report["number"], report["codes"]

    # Leo's creator saw table `number` (Mina's and Jun's) and drew another number and code
    leo = report["leo_log"]
    assert f"Table number {number} is already in use on this network; drew a new number and code." in leo
    leo_code = re.search(r"Table code: (\S+)", leo).group(1)
    assert leo_code.split("-")[0] != number and leo_code != codes["Leo"]
    listed = {(t["nameplate"], t["creator"]) for t in report["tables"]}
    assert {(number, "Mina"), (number, "Jun")} <= listed and (number, "Leo") not in listed

    # a joiner without --creator is told whose tables they are, and no creator counts a guess
    unsure = report["unsure"]
    assert unsure["rc"] == 1
    assert re.fullmatch(rf"sasaki: 2 tables numbered {number} are on the local network, made by "
                        r"(Mina, Jun|Jun, Mina); say whose with --creator NAME\.\n", unsure["stderr"]), unsure
    assert all("tried a wrong code" not in log for log in report["host_logs"].values())

    # the fifth joiner of Mina's full table
    assert report["fifth"] == {"rc": 1, "stderr": f"sasaki: table {number} is full.\n", "stdout": ""}   # only that

    # both tables played their hand, with the names each member chose in the signed roster
    assert report["peers"] == {"Mina": [0, 0], "Jun": [0, 0]}, report["host_logs"]
    assert "Sora (" in report["host_logs"]["Mina"] and "Hana (" in report["host_logs"]["Jun"]
    for who, joiner in (("Mina", "Sora"), ("Jun", "Hana")):
        audit = report["audits"][who]
        assert audit["rc"] == 0 and audit["ok"] and audit["complete"], audit
        assert sorted(audit["names"]) == sorted([who, "Bot 2", "Bot 3", joiner])
