"""``sasaki demo``: four peers as separate processes on this machine, over the real protocol.

One ``sasaki host`` and three ``sasaki join`` processes: a real table code and
SPAKE2 join on 127.0.0.1 (by address, so no mDNS at all), the real authenticated
mesh, the mental-poker deal with proofs, bots in every seat (or ``--human``: you
play seat 0's peer in this terminal). The host's peer tells the match play by
play here; the others log to files in the demo directory. At the end every
peer's transcript is audited and the four results are compared.

``--local`` runs the old in-process demo instead (engine only, no network).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from p2p_sasaki.cli import demo_local
from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.cli.common import SASKU_HANDS, add_web_options, positive, say_error, seconds
from p2p_sasaki.cli.simulate import add_seat_options
from p2p_sasaki.protocol.net import TableCode


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo", help=COMMANDS["demo"],
        description="Start four sasaki peers as separate processes on 127.0.0.1 (one creates a "
                    "table, three join it with its code), let bots play a match with the full "
                    "protocol (mental-poker deal with proofs, signed messages), print it play by "
                    "play, then audit every peer's transcript. --human: you play one seat here.")
    parser.add_argument("--game", choices=("sasaki", "sasku"), default="sasaki",
                        help="the game: sasaki (the default) or sasku (two pairs race to --target game points)")
    parser.add_argument("--target", type=positive, default=None, metavar="N",
                        help="sasku: the game points that win the match (default 12; with --fast 4)")
    parser.add_argument("--hands", type=positive, default=None, metavar="N",
                        help="hands to play (default 1; sasku: a cap, the match ends at the target)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the bots' choices (the deal is the peers' joint randomness; "
                             "with --local, the seed of the deal too)")
    parser.add_argument("--human", action="store_true", help="play the creator's seat yourself in this terminal")
    parser.add_argument("--name", default=None, metavar="NAME",
                        help="--human: your name at the table (default: the one 'sasaki name' keeps, else "
                             "your login name); the bots are Bot 2, Bot 3 and Bot 4")
    parser.add_argument("--dir", type=Path, default=None,
                        help="keep identities, transcripts and logs here (default: a new temporary directory)")
    parser.add_argument("--timeout", type=seconds, default=30.0,
                        help="--human: seconds to claim a run, Stop, chata or kkojda (default 30)")
    add_web_options(parser)
    parser.add_argument("--deal-seed", type=int, default=None, help=argparse.SUPPRESS)  # tests: a fixed deal
    parser.add_argument("--local", action="store_true",
                        help="the old demo instead: four bots in this process, engine only, no network")
    parser.add_argument("--record", metavar="FILE", help="--local only: write the game record(s) here")
    add_seat_options(parser, "heuristic,heuristic,heuristic,heuristic")  # peer i plays seats[i]
    parser.add_argument("--no-proofs", action="store_true", help="skip the shuffle proofs (faster)")
    parser.add_argument("--fast", action="store_true",
                        help="every delay 0 (the shot clock off); the default without --human, where only "
                             "bots sit; with --human, the people's shot clock (4 s windows, 3 s chata and "
                             "kkojda, 1 s turns) unless --fast is given; --game sasku: also no shuffle "
                             "proofs (the strips, openings and key check still catch every cheat), and a match "
                             "to 4 unless --target")
    parser.add_argument("--fair-windows", action="store_true",
                        help="without --human: the people's shot clock anyway, as 'sasaki host' paces a table")
    parser.set_defaults(func=run)


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONUNBUFFERED="1")


def run(args: argparse.Namespace) -> int:
    if args.local:
        if args.game != "sasaki":
            print("sasaki demo: --local plays Sasaki only (drop --local for Sasku over the real protocol).",
                  file=sys.stderr)
            return 2
        args.hands = args.hands or 1
        return demo_local.run(args)
    started = time.monotonic()
    directory = (args.dir or Path(tempfile.mkdtemp(prefix="sasaki-demo-"))).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(3), "big")
    if args.game == "sasku" and args.seed is None and not args.human:
        seed = SASKU_DEMO_SEED
    code = TableCode.generate()
    ready = directory / "host.address"
    ready.unlink(missing_ok=True)
    ready.with_suffix(".seats").unlink(missing_ok=True)
    sasku = args.game == "sasku"
    hands = args.hands or (SASKU_HANDS if sasku else 1)
    common = ["--interface", "127.0.0.1", "--hands", str(hands), "--lead", args.lead]
    if sasku:
        if args.deal_seed is None and not args.human:   # a seeded match: the same deals every run
            args.deal_seed = seed if args.seed is not None else SASKU_DEMO_SEED
            _seed_identities(directory, args.deal_seed)
        target = args.target or (4 if args.fast else 12)
        common += ["--game", "sasku", "--target", str(target)]
    extra = ["--no-proofs"] if args.no_proofs or (sasku and args.fast) else []
    if demo_is_fast(args):   # (the flag's zeros: 'host --fast' is refused where a person sits)
        extra += ["--window", "0", "--claim-window", "0", "--bot-turn", "0"]
    py = [sys.executable, "-P", "-m", "p2p_sasaki"]
    print(f"Demo in {directory}: four peers on 127.0.0.1, table code {code}, bot seed {seed}.", flush=True)
    transcripts = [directory / f"peer{i}.sasaki" for i in range(4)]
    for path in transcripts:
        path.unlink(missing_ok=True)
    host_argv = py + ["host", "--new", "--code", str(code), "--ready-file", str(ready), "--no-mdns",
                      "--data-dir", str(directory / "peer0"), "--transcript", str(transcripts[0]),
                      "--timeout", str(args.timeout)] + common + extra
    host_argv += ["--no-invite", "--demo", "--proof-workers", "0"]  # four peers share this machine's cores
    host_argv += ["--name", _human_name(args)] if args.human else [
        "--bot", "--seed", str(seed), "--bot-kind", args.seats[0], "--level", str(args.level), "--name", "Bot 1"]
    if args.human and args.web:
        host_argv += ["--web", "--web-linger", str(args.web_linger)] + (["--no-browser"] if args.no_browser else [])
    deal_seed = ["--deal-seed", str(args.deal_seed)] if args.deal_seed is not None else []
    host_argv += deal_seed
    processes: list[subprocess.Popen[bytes]] = []
    try:
        processes.append(subprocess.Popen(host_argv, env=_env()))
        deadline = time.monotonic() + 30
        while not ready.exists():
            if processes[0].poll() is not None or time.monotonic() > deadline:
                print("sasaki demo: the creator's peer did not start; see the output above.", file=sys.stderr)
                return 1
            time.sleep(0.05)
        address = ready.read_text().strip()
        for i in (1, 2, 3):
            argv = py + ["join", "--new", str(code), "--address", address, "--bot", "--seed", str(seed + i),
                         "--name", f"Bot {i + 1}",
                         "--bot-kind", args.seats[i], "--level", str(args.level),
                         "--data-dir", str(directory / f"peer{i}"), "--transcript", str(transcripts[i]),
                         "--interface", "127.0.0.1", "--proof-workers", "0",
                         "--next-match", "yes" if args.human else "no"] + deal_seed
            with open(directory / f"peer{i}.log", "wb") as log:
                processes.append(subprocess.Popen(argv, env=_env(), stdin=subprocess.DEVNULL,
                                                  stdout=log, stderr=subprocess.STDOUT))
            if deal_seed:   # a fixed deal needs a fixed join order (the roster order seats the table)
                _wait_seats(ready.with_suffix(".seats"), i + 1, processes)
        # With a person, the bots are there for them only: when their peer ends, so do the bots.
        codes = wait_all(processes, first_leads=args.human)
    except KeyboardInterrupt:
        # Ctrl-C reached every peer too: the first one (on this terminal) says the one sentence
        # ("interrupted; ... the demo ends here"); the demo waits for it, then stops the others.
        if processes:
            try:
                processes[0].wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if not processes or processes[0].returncode != 130:   # nobody said it: say it here
            say_error("interrupted; the demo ends here ('sasaki demo' starts a new one)")
        return 130
    finally:   # any failure, Ctrl-C or a closed terminal included: no peer is left behind
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait()
    left = args.human and codes[0] != 0
    if left:   # Ctrl-D, 'quit', or a failure: the peer said why; the bots were stopped
        print(f"\nYour peer ended (status {codes[0]}) after {time.monotonic() - started:.1f} s; the bots were stopped. "
              "Auditing the transcripts as far as they go:", flush=True)
    else:
        print(f"\nAll four peers exited ({', '.join(map(str, codes))}) after {time.monotonic() - started:.1f} s. "
              "Auditing their transcripts:", flush=True)
    matches = [transcripts]
    while any(p.with_name(f"{p.stem}-{len(matches) + 1}{p.suffix}").exists() for p in transcripts):   # next matches
        matches.append([p.with_name(f"{p.stem}-{len(matches) + 1}{p.suffix}") for p in transcripts])
    status = 0
    for number, files in enumerate(matches, 1):
        if len(matches) > 1:
            print(f"Match {number}:", flush=True)
        status = max(status, audit_all(files, codes, stopped=left))
        if args.game == "sasku" and status == 0 and not left:
            hand_overs(files[0])
    return codes[0] if left else status


def hand_overs(transcript: Path) -> None:
    """Say how many picture givings the audited Sasku match held (from its records: the
    audit replayed each hand-over with the hand's revealed keys)."""
    from p2p_sasaki.protocol.table_audit import export_records

    records = export_records(transcript.read_bytes())
    gives = [line for record in records for line in record.splitlines() if " give " in line]
    deals = [n for n, record in enumerate(records, 1) if any(" give " in line for line in record.splitlines())]
    where = f" (deal {', '.join(map(str, deals))})" if deals else ""
    print(f"Picture givings audited: {len(gives)}{where}; every hand-over was checked against the revealed keys.")


SASKU_DEMO_SEED = 2
"""``sasaki demo --game sasku``'s default seed (bots and deals): its match deals a picture giving."""


def _seed_identities(directory: Path, seed: int) -> None:
    """Fixed identity keys for the four peers (from ``seed``), so that with the deal seed the
    match repeats: the session's randomness is a function of the seed and the identity."""
    import hashlib

    for i in range(4):
        folder = directory / f"peer{i}"
        folder.mkdir(parents=True, exist_ok=True)
        key = folder / "identity.key"
        key.unlink(missing_ok=True)
        key.write_bytes(hashlib.sha256(f"sasaki demo identity {seed} {i}".encode()).digest())


def demo_is_fast(args: argparse.Namespace) -> bool:
    """Whether the demo's table has every delay 0: ``--fast``, or bots only without
    ``--fair-windows``. A person at the demo (``--human``) gets the people's shot clock
    unless ``--fast``: the other seats are their own bots, so there is nobody to hide from.

    >>> from argparse import Namespace as A
    >>> [demo_is_fast(A(human=h, fast=f, fair_windows=False)) for h, f in ((0, 0), (1, 0), (1, 1))]
    [True, False, True]
    """
    if getattr(args, "fast", False):
        return True
    return not args.human and not getattr(args, "fair_windows", False)


def _human_name(args: argparse.Namespace) -> str:
    """The demo player's name: --name, else the kept one, else the login name, else "You"."""
    from p2p_sasaki.cli.common import CliError, default_data_dir
    from p2p_sasaki.cli.name import clean_name, login_name, stored_name

    if args.name is not None:
        try:
            return clean_name(args.name)
        except CliError as error:
            raise SystemExit(f"sasaki: {error}.") from None
    try:
        kept = stored_name(default_data_dir())
    except CliError:
        kept = None
    return kept or login_name() or "You"


def _wait_seats(path: Path, seats: int, processes: list[subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + 60
    while not (path.exists() and path.read_text().strip() == str(seats)):
        if any(p.poll() is not None for p in processes) or time.monotonic() > deadline:
            return
        time.sleep(0.05)


def wait_all(processes: list[subprocess.Popen[bytes]], grace: float = 20.0, first_leads: bool = False) -> list[int]:
    """Exit statuses; once one peer fails, the others get ``grace`` seconds, then are killed.
    ``first_leads``: the first peer is a person's and the others are there for them, so when
    it ends early (a nonzero status: Ctrl-D, 'quit', a failure) the others get only a few
    seconds (after a 'quit' they abandon the hand and end by themselves), then are killed."""
    failed_at = None
    if first_leads:
        grace = min(grace, 5.0)
    while any(p.poll() is None for p in processes):
        if failed_at is None and any(p.returncode not in (None, 0) for p in processes):
            failed_at = time.monotonic()
        if failed_at is not None and time.monotonic() - failed_at > grace:
            for p in processes:
                if p.poll() is None:
                    p.kill()
        time.sleep(0.1)
    return [p.wait() for p in processes]


def audit_all(transcripts: list[Path], codes: list[int], stopped: bool = False) -> int:
    """Audit the four transcripts of one match and say in one line whether they verify and
    agree. ``stopped``: the person's peer ended this match early (the bots were stopped), so
    transcripts that verify as far as they go, nobody blamed, are what is expected."""
    from p2p_sasaki.cli.audit import audit_file, describe

    results: list[Any] = []
    # an audit is a function of the file's bytes: identical transcripts (a match that ended
    # well leaves four) are audited once
    audits: dict[bytes, Any] = {}
    for path in transcripts:
        if not path.exists():
            print(f"  {path.name}: missing")
            results.append(None)
            continue
        data = path.read_bytes()
        if data not in audits:
            audits[data] = audit_file(path)
        audit = audits[data]
        results.append(audit)
        print(f"  {path.name}: {describe(audit).splitlines()[0]}")
    good = [r for r in results if r is not None and r.ok and r.complete]
    totals = {tuple(r.totals) for r in good}
    if len(good) == 4 and len(totals) == 1 and (stopped or not any(codes)):
        print(f"Audit: all four transcripts verify and agree: totals {list(totals.pop())}.")
        return 0
    if stopped:
        unblamed = [r for r in results if r is not None and r.blame is None]
        # the person's own transcript stops before the others settle the hand it left (a forfeit):
        # each must be a prefix of the longest, whose totals are the match's
        held = [path.read_bytes() for path in transcripts if path.exists()]
        longest = max(held, key=len, default=b"")
        agree = len(held) == 4 and all(longest.startswith(data) for data in held)
        totals = {tuple(r.totals) for r, data in zip(results, held, strict=False) if data == longest}
        if len(unblamed) == 4 and agree and len(totals) == 1:
            print("Audit: the four transcripts stop where you left, nobody is blamed, and what they hold "
                  f"verifies and agrees: totals {list(totals.pop())}.")
            return 0
    print("Audit: the transcripts do NOT all verify and agree (see above; logs are next to them).")
    return 1
