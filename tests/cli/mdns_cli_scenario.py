"""The real ``sasaki`` commands over real mDNS, run by test_mdns_commands.py INSIDE a
fresh network namespace::

    unshare --net --mount python tests/cli/mdns_cli_scenario.py table|bots|play WORKDIR

The namespace has only ``lo`` (brought up here; the scenario refuses to run if it
sees any other interface), so the commands run with their default interfaces and
no packet can leave the machine. The last line printed is a JSON report; the test
makes the assertions.

* ``table``: ``sasaki host`` (mDNS advertised, default interfaces); ``sasaki tables
  --json`` and ``sasaki tables`` list it; when avahi is installed, a private
  dbus-daemon + avahi-daemon on ``lo`` and ``avahi-browse -rtp _sasaki._tcp`` see it;
  ``sasaki join WRONG-CODE`` is refused; three ``sasaki join CODE --bot`` find it by
  mDNS and play the hand; ``sasaki audit`` checks a transcript.

The commands that end by themselves (tables, a refused join, audit), the ``table``
scenario's three joiners and the ``lan`` scenario's joiners and its creator that draws a new
number run in this process (tests/cli/inproc.py), through the same entry as the command line;
the creators that play, the bots they start and the terminals are processes.
* ``bots``: ``sasaki tables`` with nothing advertised (both outputs), then
  ``sasaki host --bots 3`` plays a 1-hand match alone; every bot's transcript audits.
* ``lan``: tables on one LAN: two creators share a number (``--keep-number``), a third
  draws a new one; a joiner without ``--creator`` is asked whose table, two with it join
  theirs, a fifth is told the table is full; the names are in the audits.
* ``play``: the interactive ``sasaki play`` in pseudo-terminals (pexpect): a typo'd
  code is refused and asked again; a creator browses, sees nothing, presses Enter and creates a
  table with two bots; a joiner browses, sees the table and types its code.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT))  # tests.* helpers; p2p_sasaki stays the installed one

from p2p_sasaki.protocol.net import TableCode  # noqa: E402
from p2p_sasaki.protocol.net.words import WORDS  # noqa: E402
from tests.cli.inproc import Command, cli, command, play  # noqa: E402
from tests.net.mdns_scenario import assert_isolated, start_avahi  # noqa: E402

# Proofs made in each peer's own process, as tests/cli/peers.py's env(): a creator would
# otherwise start a pool of proof workers (an interpreter start each) even with --no-proofs
CHILD_ENV = dict(os.environ, PYTHONUNBUFFERED="1", SASAKI_PROOF_WORKERS="0")
# mDNS and the commands are the point here, not the proofs (the full-proof demo covers those)
# nor the bots' play: heuristic bots (the bots a creator starts are search bots by default,
# hundreds of rollouts a decision)
FAST = ["--hands", "1", "--lead", "3H", "--window", "0", "--claim-window", "0", "--bot-turn", "0", "--no-proofs",
        "--bot-kind", "heuristic"]
TOTALS = re.compile(r"Match over\. Totals: (.*)\.")
children: list[subprocess.Popen] = []


def sasaki(*argv: str, timeout: float = 0) -> subprocess.CompletedProcess:
    """A command that ends by itself (tables, a refused join, audit) in this process, as the
    command line runs it (tests/cli/inproc.py): no interpreter start each; its own options
    (--timeout, --browse-timeout) bound how long it looks. The tables, the creators and the
    joiners that play stay processes of their own."""
    return cli(*argv)


def start(log: Path, *argv: str) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-P", "-m", "p2p_sasaki", *argv], cwd=ROOT, env=CHILD_ENV,
                               stdin=subprocess.DEVNULL, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    children.append(process)
    return process


def wait_for_text(log: Path, process: subprocess.Popen, text: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while True:
        out = log.read_text() if log.exists() else ""
        if text in out:
            return out
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{text!r} did not appear; the output was:\n{out}")
        time.sleep(0.05)


def wait(process: subprocess.Popen, log: Path, timeout: float = 60) -> tuple[int, str]:
    process.wait(timeout)
    return process.returncode, log.read_text()


def audit(path: Path) -> dict:
    out = sasaki("audit", "--json", str(path), timeout=60)
    report = json.loads(out.stdout) if out.stdout.strip().startswith("{") else {"stdout": out.stdout}
    report["rc"] = out.returncode
    return report


def wrong_code(code: TableCode) -> TableCode:
    first, second = code.words
    other = next(w for w in WORDS if w not in (first, second))
    return TableCode(code.nameplate, (first, other))


def table_scenario(work: Path) -> dict:
    report: dict = {}
    env = None
    if all(shutil.which(tool) for tool in ("avahi-browse", "avahi-daemon", "dbus-daemon")):
        avahi, env = start_avahi(work)
        children.extend(avahi)
    code = TableCode.generate()
    report["code"] = str(code)
    host_log = work / "host.log"
    host = start(host_log, "host", "--bot", "--seed", "1", *FAST, "--code", str(code),
                 "--data-dir", str(work / "p0"), "--transcript", str(work / "p0.sasaki"))
    out = wait_for_text(host_log, host, "Waiting for 3 player(s) to join")
    report["host_address"] = re.search(r"Join address \(if multicast does not pass\): (\S+)", out).group(1)

    tables = sasaki("tables", "--json", timeout=30)
    report["tables_json"] = {"rc": tables.returncode, "stdout": tables.stdout, "stderr": tables.stderr}
    tables = sasaki("tables", "--timeout", "5", timeout=30)  # a loaded machine answers late
    report["tables_text"] = {"rc": tables.returncode, "stdout": tables.stdout, "stderr": tables.stderr}
    if env is not None:
        browse = subprocess.run(["avahi-browse", "-rtp", "_sasaki._tcp"], env=env, capture_output=True, text=True,
                                timeout=30)
        report["avahi_browse"] = {"rc": browse.returncode, "lines": browse.stdout.splitlines()}

    report["wrong_code"] = str(wrong_code(code))
    wrong = sasaki("join", report["wrong_code"], "--bot", "--data-dir", str(work / "wrong"), timeout=30)
    report["wrong"] = {"rc": wrong.returncode, "stdout": wrong.stdout, "stderr": wrong.stderr}
    wait_for_text(host_log, host, "tried a wrong code", timeout=5)

    started = time.monotonic()
    # the three joiners find the table by mDNS and play: commands in this process, side by side
    # (tests/cli/inproc.py); the host they find is a process of its own
    joiners = trio.run(functools.partial(play, *(["join", str(code), "--bot", "--seed", str(i),
                                                  "--data-dir", str(work / f"p{i}"),
                                                  "--transcript", str(work / f"p{i}.sasaki")] for i in (1, 2, 3)),
                                         deadline=60))
    results = [wait(host, host_log)] + [(joiner.status, joiner.text()) for joiner in joiners]
    report["match_seconds"] = round(time.monotonic() - started, 1)
    report["peers"] = [{"rc": rc, "totals": (m.group(1) if (m := TOTALS.search(out)) else None), "tail": out[-1500:]}
                       for rc, out in results]
    report["host_log"] = host_log.read_text()
    report["transcripts_identical"] = len({(work / f"p{i}.sasaki").read_bytes() for i in range(4)}) == 1
    report["audit"] = audit(work / "p0.sasaki")
    return report


def bots_scenario(work: Path) -> dict:
    report: dict = {}
    for flag in ("--json", None):
        out = sasaki("tables", "--timeout", "1", *([flag] if flag else []), timeout=30)
        report[f"empty_{'json' if flag else 'text'}"] = {"rc": out.returncode, "stdout": out.stdout,
                                                         "stderr": out.stderr}
    started = time.monotonic()
    log = work / "host.log"
    host = start(log, "host", "--bots", "3", "--bot", "--seed", "5", *FAST, "--data-dir", str(work / "p0"),
                 "--transcript", str(work / "p0.sasaki"))
    rc, host_out = wait(host, log)
    report["seconds"] = round(time.monotonic() - started, 1)
    report["host"] = {"rc": rc, "out": host_out}
    bot_transcripts = sorted((work / "p0" / "bots").glob("*/transcripts/*.sasaki"))
    report["bot_transcripts"] = [str(p.relative_to(work)) for p in bot_transcripts]
    report["transcripts_identical"] = len({p.read_bytes() for p in [work / "p0.sasaki", *bot_transcripts]}) == 1
    report["audits"] = [audit(p) for p in [work / "p0.sasaki", *bot_transcripts]]
    return report


def play_scenario(work: Path) -> dict:
    import pexpect

    report: dict = {}

    def spawn(name: str, *argv: str) -> pexpect.spawn:
        child = pexpect.spawn(sys.executable, ["-P", "-m", "p2p_sasaki", "play", *argv], cwd=str(ROOT), env=CHILD_ENV,
                              encoding="utf-8", timeout=40)
        child.logfile_read = (work / f"{name}.log").open("w")
        return child

    prompt = r"or press Enter to create a table:"
    typo = spawn("typo", "--browse-timeout", "1", "--data-dir", str(work / "typo"))
    typo.expect(prompt)
    typo.sendline("7-purple")
    typo.expect(r"Type the code again, or press Enter to create a table:")   # asked again, no exit
    typo.sendeof()
    typo.expect(pexpect.EOF)
    typo.close()
    report["typo"] = {"rc": typo.exitstatus, "out": (work / "typo.log").read_text()}

    creator = spawn("creator", "--browse-timeout", "1", "--bot", "--seed", "3", "--bots", "2", *FAST,
                    "--data-dir", str(work / "p0"), "--transcript", str(work / "p0.sasaki"))
    creator.expect(prompt)
    report["creator_saw_none"] = "(none seen)" in creator.before
    creator.sendline("")
    creator.expect(r"Table code: (\S+)")
    code = creator.match.group(1)
    report["code"] = code
    creator.expect(r"joined \(3 of 4 seats taken\)")      # both bots are in
    # The advertisement's seat count is updated after the join: wait until mDNS shows it,
    # so the joiner's own browse below sees "3 of 4" and not a moment-old "2 of 4".
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        listed = json.loads(sasaki("tables", "--json", "--timeout", "1", timeout=30).stdout or "[]")
        if any(t["seats_taken"] == 3 for t in listed):
            break

    joiner = spawn("joiner", "--browse-timeout", "3", "--bot", "--seed", "4",
                   "--data-dir", str(work / "p1"), "--transcript", str(work / "p1.sasaki"))
    joiner.expect(prompt)
    report["joiner_saw"] = joiner.before
    joiner.sendline(code)
    for child in (joiner, creator):
        child.expect(pexpect.EOF, timeout=60)
        child.close()
    report["joiner"] = {"rc": joiner.exitstatus, "out": (work / "joiner.log").read_text()}
    report["creator"] = {"rc": creator.exitstatus, "out": (work / "creator.log").read_text()}
    report["audit"] = audit(work / "p1.sasaki")
    return report


def lan_scenario(work: Path) -> dict:
    """Two tables with one number (--keep-number), a third creator that redraws its number,
    a joiner who must say whose table, two who do (--creator), and a fifth who is told the
    table is full."""
    report: dict = {}
    first = TableCode.generate()
    number = first.nameplate
    codes = {who: TableCode(number, words) for who, words in
             (("Mina", first.words), ("Jun", (WORDS[0], WORDS[1])), ("Leo", (WORDS[2], WORDS[3])))}
    report["number"] = number
    report["codes"] = {who: str(code) for who, code in codes.items()}
    logs = {who: work / f"{who}.log" for who in ("Mina", "Jun")}

    def creator(who: str, *extra: str) -> subprocess.Popen:
        return start(logs[who], "host", "--bot", "--seed", "1", *FAST, "--name", who,
                     "--code", str(codes[who]),
                     "--data-dir", str(work / who), "--transcript", str(work / f"{who}.sasaki"), *extra)

    started = time.monotonic()
    # Mina's bots play at a paced 0.2 s a turn (about 10 s a hand), so her full table is still
    # listed when the fifth joiner looks (an unpaced hand could end, and its record go, first)
    mina = creator("Mina", "--bots", "2", "--keep-number", "--bot-turn", "0.2")
    wait_for_text(logs["Mina"], mina, "Waiting for 1 player(s) to join")
    jun = creator("Jun", "--bots", "2", "--keep-number")

    async def leo_draws_another_number() -> str:
        """Leo's creator sees table `number` twice and draws another number: a command in this
        process (tests/cli/inproc.py), ended once it waits for joiners (and Jun's does too)."""
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                leo = await nursery.start(command, ["host", "--bot", "--seed", "1", *FAST, "--name", "Leo",
                                                    "--code", str(codes["Leo"]), "--data-dir", str(work / "Leo"),
                                                    "--transcript", str(work / "Leo.sasaki")])
                while "to join" not in leo.text() or "to join" not in logs["Jun"].read_text():
                    if leo.done.is_set() or jun.poll() is not None:
                        raise RuntimeError(f"Leo's or Jun's creator ended:\n{leo.text()}\n{logs['Jun'].read_text()}")
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
        return leo.text()

    report["leo_log"] = trio.run(leo_draws_another_number)
    listed = sasaki("tables", "--json", "--timeout", "2", timeout=30)
    report["tables"] = json.loads(listed.stdout or "[]")

    unsure = sasaki("join", str(codes["Mina"]), "--bot", "--browse-timeout", "5",
                    "--data-dir", str(work / "unsure"), timeout=30)
    report["unsure"] = {"rc": unsure.returncode, "stderr": unsure.stderr}

    async def join_then_a_fifth() -> tuple[dict[str, Command], Command]:
        """Sora and Hana join by mDNS and play; once Mina's table is full, a fifth tries it.
        The three are commands in this process (tests/cli/inproc.py); the creators are not."""
        with trio.fail_after(150):
            async with trio.open_nursery() as nursery:
                joiners = {who: await nursery.start(command, ["join", str(codes[who]), "--creator", who, "--bot",
                                                              "--name", name, "--data-dir", str(work / f"{who}-joiner"),
                                                              "--transcript", str(work / f"{who}-joiner.sasaki")])
                           for who, name in (("Mina", "Sora"), ("Jun", "Hana"))}
                with trio.move_on_after(30):
                    while "joined (4 of 4 seats taken)" not in logs["Mina"].read_text() and mina.poll() is None:
                        await trio.sleep(0.05)
                if "joined (4 of 4 seats taken)" not in logs["Mina"].read_text():
                    raise RuntimeError(f"Mina's table was not full; the output was:\n{logs['Mina'].read_text()}")
                fifth = await command(["join", str(codes["Mina"]), "--creator", "Mina", "--bot",
                                       "--data-dir", str(work / "fifth")])
        return joiners, fifth

    joiners, fifth = trio.run(join_then_a_fifth)
    report["fifth"] = {"rc": fifth.status, "stderr": fifth.err.getvalue(), "stdout": fifth.out.getvalue()}
    report["peers"] = {who: [wait(process, logs[who])[0], joiners[who].status]
                       for who, process in (("Mina", mina), ("Jun", jun))}
    report["match_seconds"] = round(time.monotonic() - started, 1)
    report["host_logs"] = {who: logs[who].read_text() for who in ("Mina", "Jun")}
    report["audits"] = {who: audit(work / f"{who}.sasaki") for who in ("Mina", "Jun")}
    return report


def main() -> None:
    mode, work = sys.argv[1], Path(sys.argv[2])
    assert_isolated()
    scenarios = {"table": table_scenario, "bots": bots_scenario, "play": play_scenario, "lan": lan_scenario}
    if mode not in scenarios:
        sys.exit(f"unknown scenario {mode!r}")
    started = time.monotonic()
    try:
        report = scenarios[mode](work)
    finally:
        for child in reversed(children):
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(5)
                except subprocess.TimeoutExpired:
                    child.kill()
    report["scenario_seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
