"""Does an answer's arrival time tell what its seat holds? (issue 18, finding 1: the shot clock)

Four peer processes on 127.0.0.1 play one match over the real TCP mesh, each driven by the real
driver (``protocol.net.table.run_table``) with its transcript fsync-ed record by record, the
fair windows on (``--scale`` times the people's shot clock: W = 4 s for run, expose, Stop and
the lead, 3 s for chata and kkojda, T = 1 s for a turn). The four seats are

  person     a scripted person at the real presenter (cli/presenter.py): its reaction time is
             drawn independently of its cards (a window: uniform over 0.1 W .. 1.2 W, so some
             are past W and declined by the clock; a turn: uniform over 0.1 T .. 0.9 T, as
             thinking past T is allowed to show), its choice the heuristic bot's (a window: the
             claim when it has one, with probability 0.7);
  heuristic, search, random   the bots (``sasaki join --bot --bot-kind K``).

Every peer stamps (CLOCK_MONOTONIC, one clock for the machine) when its session enters each
slot, and when each signed game answer first arrives from its socket (relays included: the
first copy counts). An answer's **arrival delay** at a peer is its arrival there minus the
slot's opening there (when its session entered the slot, or, if its own answer opened it,
when that answer went out); an answer's sample is the median of its delays at the three other
peers (one answer seen three times is one sample). Answers are grouped by the decision's
pacing kind and by who sent them, and split by what the sender could do: in a window, seats
that could claim (a legal answer other than decline: they hold the cards) against seats that
could not; in the Stop window, where everyone may Stop, those that did against those that
did not; the lead, its holder against the others; on a turn,
free choices (``n_claim``) against forced ones (``n_noclaim``: pass was the only answer).
With ``--game sasku`` every decision is one seat's, paced by its kind (bid, answer, return,
trump, turn: protocol/sasku_game.py ``PACE_KINDS``; the give's hand-over is paced as a bid and
a refused picture's way back as a return, both forced): each kind splits into free choices
(more than one legal answer) against forced ones (one: the hand-over, a play with one legal
card, a return of the one card that is not a picture), and ``bid:give`` splits the bidding
turns by whether the seat's cards let it give a picture; there the scripted person gives
whenever it may and refuses half the pictures it is given (so every kind comes up), its
reaction time drawn as for a turn. A group is listed only when both sides came up; every
answer is also listed by kind, both sides together (``paced``), as the take-or-refuse and
the trump call are always free. ``p``: two-sided Mann-Whitney U test of the
two sides (exact distribution for small samples without ties, else the normal approximation
with tie and continuity corrections; written here, no scipy). Target: over at least 6 hands
per group, no p below 0.01 / (number of groups) and no difference of medians above 20 ms.

Usage: python bench/timing.py [--game sasaki|sasku] [--hands 8] [--scale 0.2] [--seed 1] [--proofs] [--json]
       python bench/timing.py --quick [--game sasku] [--json]   (2 hands at 0.1 x the clock: a smoke run)
"""

from __future__ import annotations

import argparse
import json
import math
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from random import Random
from typing import Any

import trio

sys.path.append(str(Path(__file__).resolve().parent.parent))  # bench.table (after the installed package)
from bench.table import loopback_listeners, run_forked  # noqa: E402
from p2p_sasaki.cli.presenter import Presenter, Prompt
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.messages import HandOver, MessageError, TableAction, decode_envelope
from p2p_sasaki.protocol.net import Identity, TableRoster
from p2p_sasaki.protocol.net.table import BotPlayer, Turn, WindowOpened, run_table
from p2p_sasaki.protocol.sasaki_game import CLAIM_SECONDS, TURN_SECONDS, WINDOW_SECONDS, SasakiGame, sasaki_pace
from p2p_sasaki.protocol.sasku_game import FAIR_PACE as SASKU_PACE
from p2p_sasaki.protocol.sasku_game import GiveCall, SaskuGame, TableBot, sasku_pace
from p2p_sasaki.protocol.session import TableConfig, TableSession
from p2p_sasaki.sasaki.bots import make_bot
from p2p_sasaki.sasaki.hand import DecisionKind, Decline, Pass
from p2p_sasaki.sasaki.options import TableOptions
from p2p_sasaki.sasku.bots import make_bot as make_sasku_bot
from p2p_sasaki.sasku.deal import Refuse, Take
from p2p_sasaki.sasku.options import SaskuOptions

SEATS = ("person", "heuristic", "search", "random")   # by roster index (the seats are drawn)
GIVE_GROUP = "bid:give"   # Sasku's bidding turns again, split by whether the seat's cards let it give a picture
TARGET_MS = 20.0


def clock() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)


# ---------------------------------------------------------------------------------------
# The players
# ---------------------------------------------------------------------------------------


class ScriptedPerson:
    """A person at the real presenter: reaction times drawn independently of the cards."""

    def __init__(self, seed: int, game: str = "sasaki") -> None:
        self.presenter = Presenter(timeout=60.0, game=game)
        self.rng = Random(f"person/{seed}")
        self.game = game
        self.bot = make_player_bot(game, "heuristic", Random(f"person bot/{seed}"))

    async def decide(self, turn: Turn) -> Any:
        opened = self.presenter.open(turn)
        if not isinstance(opened, Prompt):
            return opened                    # forced: the presenter answers at once
        prompt = opened
        # Sasku has no windows: every decision is one seat's, paced like a turn
        is_turn = self.game == "sasku" or turn.decision.kind is DecisionKind.TURN
        if is_turn:
            choice = self.sasku_choice(turn) if self.game == "sasku" else None
            choice = choice if choice is not None else self.bot.choose(turn.view, turn.legal)
            after = self.rng.uniform(0.1, 0.9) * turn.delay
        else:
            claims = [a for a in turn.legal if not isinstance(a, Decline)]
            choice = self.rng.choice(claims) if claims and self.rng.random() < 0.7 else \
                next(a for a in turn.legal if isinstance(a, Decline))
            after = self.rng.uniform(0.1, 1.2) * turn.delay
        start = turn.opened if turn.opened is not None else trio.current_time()

        async def answer() -> None:
            await trio.sleep_until(start + after)
            self.presenter.answer(prompt.id, **_answer_of(self.presenter, choice, is_turn and self.game == "sasaki"))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(answer)
            action = await self.presenter.wait(prompt)
            nursery.cancel_scope.cancel()
        return action


    def sasku_choice(self, turn: Turn) -> Any:
        """At Sasku the person gives a picture whenever it may and refuses half the pictures it
        is given, so that every kind of decision comes up (the give's hand-over, the answer, a
        return and a refused picture's way back); None: the heuristic bot's choice."""
        gives = [a for a in turn.legal if isinstance(a, GiveCall)]
        if gives:
            return gives[0]
        answers = [a for a in turn.legal if isinstance(a, (Take, Refuse))]
        return self.rng.choice(answers) if answers else None


def make_player_bot(game: str, kind: str, rng: Random) -> Any:
    """The engine bot of ``kind`` for ``game`` (Sasku's behind its adapter's TableBot)."""
    return TableBot(make_sasku_bot(kind, rng)) if game == "sasku" else make_bot(kind, rng)


def _answer_of(presenter: Presenter, choice: Any, sasaki_turn: bool) -> dict[str, str]:
    """How a view answers ``choice``: a Sasaki play typed as its cards, anything else by its key."""
    if isinstance(choice, Pass) and sasaki_turn:
        return {"key": "pass"}
    if sasaki_turn:
        return {"cards": " ".join(str(card) for card in choice.cards)}
    opened = presenter._open
    assert opened is not None
    return {"key": next(k for k, a in opened.answers.items() if a == choice)}


class Logged:
    """The seat's player, noting what it could do at each decision: (hand, slot) -> could
    claim (a window: a legal answer other than decline; a turn, and every Sasku decision: more
    than one legal answer). ``gives``: a Sasku bidding turn -> whether the seat's cards let it
    give a picture (it holds exactly one; its partner fewer than nine)."""

    def __init__(self, inner: Any, log: dict[tuple[int, int], bool], where: Any, game: str = "sasaki",
                 gives: dict[tuple[int, int], bool] | None = None) -> None:
        self.inner, self.log, self.where, self.game = inner, log, where, game
        self.gives = gives if gives is not None else {}
        self.is_bot = getattr(inner, "is_bot", False)

    async def decide(self, turn: Turn) -> Any:
        if self.game == "sasku" or turn.decision.kind is DecisionKind.TURN:
            free = len(turn.legal) > 1
        else:
            free = any(not isinstance(a, Decline) for a in turn.legal)
        self.log[self.where()] = free
        if self.game == "sasku" and str(getattr(getattr(turn.decision, "kind", None), "value", "")) == "bid":
            self.gives[self.where()] = any(isinstance(a, GiveCall) for a in turn.legal)
        return await self.inner.decide(turn)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class _SentStamps:
    """Wraps the mesh's ``broadcast``: notes when each of this peer's frames goes out."""

    def __init__(self, inner: Any, sent: list[tuple[float, bytes]]) -> None:
        self.inner, self.sent = inner, sent

    async def __call__(self, frame: bytes) -> None:
        self.sent.append((clock(), frame))
        await self.inner(frame)


class _Stamping:
    """Stands in for the mesh's received channel's send end: stamps each frame as it comes
    off its socket, before the driver sees it."""

    def __init__(self, inner: Any, arrivals: list[tuple[float, bytes]]) -> None:
        self.inner, self.arrivals = inner, arrivals

    async def send(self, item: tuple[bytes, bytes]) -> None:
        self.arrivals.append((clock(), item[1]))
        await self.inner.send(item)

    def close(self) -> None:
        self.inner.close()


# ---------------------------------------------------------------------------------------
# One peer
# ---------------------------------------------------------------------------------------


async def play_peer(n: int, spec: dict, listener: trio.SocketListener) -> dict:
    who = SEATS[n]
    opens: dict[tuple[int, int], float] = {}
    arrivals: list[tuple[float, bytes]] = []
    could: dict[tuple[int, int], bool] = {}
    gives: dict[tuple[int, int], bool] = {}
    kinds: dict[tuple[int, int], str] = {}
    game = spec["game"]
    state: dict[str, Any] = {}

    def factory(identity: Identity, roster: TableRoster, config: Any) -> TableSession:
        session = TableSession(identity, roster.keys, roster.table_id, config,
                               SeededEntropy(b"bench/timing/%d/%d" % (spec["seed"], n)))
        state["session"] = session

        def stamped(method: Any) -> Any:
            # A slot opens when the call that enters it starts: the work the call does after
            # (a holder signing its lead's opening proof) is this peer's, not the sender's.
            def call(*args: Any) -> Any:
                before = clock()
                out = method(*args)
                where = (session.hand_no, session.slot)
                if where not in opens:
                    opens[where] = before
                return out
            return call

        for name in ("start", "receive", "act", "step"):
            setattr(session, name, stamped(getattr(session, name)))
        return session

    def where() -> tuple[int, int]:
        session = state["session"]
        return session.hand_no, session.slot

    inner: Any
    if who == "person":
        inner = ScriptedPerson(spec["seed"] * 10 + n, game)
    else:
        inner = BotPlayer(make_player_bot(game, who, Random(f"bench/timing/{spec['seed']}/{n}")))
    presenter = getattr(inner, "presenter", None)

    def on_event(event: Any, session: Any) -> None:
        if isinstance(event, WindowOpened):
            kinds[(event.hand, event.slot)] = event.kind
        if presenter is not None:
            presenter.event(event, session)

    sent: list[tuple[float, bytes]] = []

    def on_mesh(mesh: Any) -> None:
        mesh._received_send = _Stamping(mesh._received_send, arrivals)
        mesh.broadcast = _SentStamps(mesh.broadcast, sent)

    transcript = Path(spec["dir"]) / f"peer{n}.sasaki"
    with trio.fail_after(spec["timeout"]):
        result = await run_table(
            spec["identities"][n], spec["roster"], spec["config"], player=Logged(inner, could, where, game, gives),
            transcript_path=transcript, listeners=[listener], on_event=on_event, session_factory=factory,
            on_mesh=on_mesh, linger=1.0)
    first: dict[tuple[int, int, int], tuple[float, str]] = {}
    for at, frame in arrivals:
        try:
            body = decode_envelope(frame).body
        except MessageError:
            continue
        if isinstance(body.payload, (TableAction, HandOver)) and body.hand >= 1:   # a game answer, or a hand-over
            verb = body.payload.verb if isinstance(body.payload, TableAction) else "hand-over"
            first.setdefault((body.hand, body.slot, body.sender), (at, verb))
    # A slot this peer's own answer opened (it signed at once, the Pacer held the frame) opens
    # for it, as for the others, only when that answer went out.
    mine_out: list[tuple[int, int, float]] = []
    for at, frame in sent:
        try:
            body = decode_envelope(frame).body
        except MessageError:
            continue
        if isinstance(body.payload, (TableAction, HandOver)) and body.sender == state["session"].my_seat:
            mine_out.append((body.hand, body.slot, at))
    for opened_slot, entered in list(opens.items()):
        before = [at for h, s, at in mine_out if (h, s) < opened_slot]
        if before:
            opens[opened_slot] = max(entered, max(before))
    session = state["session"]
    return {"who": who, "seat": session.my_seat, "finished": result.finished, "totals": list(result.totals),
            "opens": [[h, s, t] for (h, s), t in opens.items()],
            "arrivals": [[h, s, sender, at, verb] for (h, s, sender), (at, verb) in first.items()],
            "could": [[h, s, c] for (h, s), c in could.items()],
            "gives": [[h, s, g] for (h, s), g in gives.items()],
            "kinds": [[h, s, k] for (h, s), k in kinds.items()],
            "transcript": str(transcript)}


def _peer_process(n: int, spec: dict, sock: socket.socket, conn: Any) -> None:
    async def main() -> dict:
        return await play_peer(n, spec, trio.SocketListener(trio.socket.from_stdlib_socket(sock)))

    try:
        conn.send(trio.run(main))
    except BaseException as exc:  # report: the parent fails the run
        conn.send({"error": f"{type(exc).__name__}: {exc}"})
    finally:
        conn.close()


def play_table(spec: dict) -> list[dict]:
    results = run_forked(_peer_process, spec, loopback_listeners(spec))
    if not all(r["finished"] for r in results) or len({tuple(r["totals"]) for r in results}) != 1:
        raise SystemExit("the match did not finish alike at every peer")
    return results


# ---------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p of the Mann-Whitney U test of samples ``a`` and ``b``: exact (the U
    distribution counted over every split) when there are no ties and n1 * n2 <= 400, else
    the normal approximation with tie and continuity corrections.

    >>> round(mann_whitney([1, 2, 3], [4, 5, 6]), 4)   # the most extreme of 20 splits, both tails
    0.1
    >>> mann_whitney([1, 3, 5], [2, 4, 6]) > 0.5
    True
    """
    n1, n2 = len(a), len(b)
    if not n1 or not n2:
        return 1.0
    pooled = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(pooled)
    ties: list[int] = []
    i = 0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        ties.append(j - i + 1)
        i = j + 1
    r1 = sum(r for r, (_, side) in zip(ranks, pooled, strict=True) if side == 0)
    u1 = r1 - n1 * (n1 + 1) / 2
    u = min(u1, n1 * n2 - u1)
    if all(t == 1 for t in ties) and n1 * n2 <= 400:
        # counts[k][u]: ways to choose k of the first m values with rank-sum excess u (built up over m)
        counts = [[0] * (n1 * n2 + 1) for _ in range(n1 + 1)]
        counts[0][0] = 1
        for m in range(1, n1 + n2 + 1):
            for k in range(min(m, n1), 0, -1):
                excess = m - k      # the m-th smallest taken as the k-th of sample a adds m - k to U
                row, prev = counts[k], counts[k - 1]
                for v in range(n1 * n2, excess - 1, -1):
                    row[v] += prev[v - excess]
        total = math.comb(n1 + n2, n1)
        tail = sum(counts[n1][: int(u) + 1]) / total
        return min(1.0, 2 * tail)
    n = n1 + n2
    sigma2 = n1 * n2 / 12 * ((n + 1) - sum(t ** 3 - t for t in ties) / (n * (n - 1)))
    if sigma2 <= 0:
        return 1.0
    z = (abs(u1 - n1 * n2 / 2) - 0.5) / math.sqrt(sigma2)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def groups(peers: list[dict]) -> list[dict]:
    """One row per (pacing kind, who) with both sides present."""
    return [{"kind": kind, "who": who, "n_claim": len(yes), "n_noclaim": len(no),
             "median_ms_claim": round(statistics.median(yes), 2),
             "median_ms_noclaim": round(statistics.median(no), 2),
             "p": mann_whitney(yes, no)}
            for (kind, who), (yes, no) in sorted(answer_samples(peers).items()) if yes and no]


def paced(peers: list[dict]) -> list[dict]:
    """Every answer by (pacing kind, who), both sides together: its count and median delay
    (the kinds that never have two sides, such as Sasku's take or refuse, are shown paced too)."""
    return [{"kind": kind, "who": who, "n": len(yes) + len(no), "median_ms": round(statistics.median(yes + no), 2)}
            for (kind, who), (yes, no) in sorted(answer_samples(peers).items()) if kind != GIVE_GROUP]


def answer_samples(peers: list[dict]) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    """(pacing kind, who) -> each answer's delay (ms, the median at the other peers), split
    into the two sides (could claim, could not)."""
    seat_who = {p["seat"]: p["who"] for p in peers}
    kinds: dict[tuple[int, int], str] = {}
    could: dict[tuple[int, int, int], bool] = {}
    gives: dict[tuple[int, int, int], bool] = {}
    for p in peers:
        for h, s, k in p["kinds"]:
            kinds.setdefault((h, s), k)
        for h, s, c in p["could"]:
            could[(h, s, p["seat"])] = c
        for h, s, g in p.get("gives", ()):
            gives[(h, s, p["seat"])] = g
    delays: dict[tuple[int, int, int], list[float]] = {}     # an answer -> its delay at each other peer
    sides: dict[tuple[int, int, int], bool] = {}
    for p in peers:
        opens = {(h, s): t for h, s, t in p["opens"]}
        for h, s, sender, at, verb in p["arrivals"]:
            if sender == p["seat"] or (h, s) not in opens or (h, s) not in kinds:
                continue
            kind = kinds[(h, s)]
            if kind == "lead":
                claim = verb != "decline"
            elif kind == "stop":
                claim = verb == "stop"     # everyone may Stop: those who did against the others
            elif (h, s, sender) in could:
                claim = could[(h, s, sender)]
            else:
                continue
            sides[(h, s, sender)] = claim
            delays.setdefault((h, s, sender), []).append((at - opens[(h, s)]) * 1000)
    # One sample per answer: the median of its delays at the other peers (its three arrivals are
    # one answer seen three times, not three answers).
    samples: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
    for (h, s, sender), seen in delays.items():
        side = samples.setdefault((kinds[(h, s)], seat_who[sender]), ([], []))
        side[0 if sides[(h, s, sender)] else 1].append(statistics.median(seen))
        if (h, s, sender) in gives:   # a Sasku bidding turn: could its cards give a picture?
            side = samples.setdefault((GIVE_GROUP, seat_who[sender]), ([], []))
            side[0 if gives[(h, s, sender)] else 1].append(statistics.median(seen))
    return samples


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=8, help="hands of the match (default 8)")
    parser.add_argument("--scale", type=float, default=0.2,
                        help="the shot clock times this (default 0.2: W = 0.8 s and 0.6 s, T = 0.2 s)")
    parser.add_argument("--quick", action="store_true", help="2 hands at 0.1 x the clock (a smoke run)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--proofs", action="store_true", help="deal with the shuffle arguments (slower)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a peer may take (default 900)")
    parser.add_argument("--json", action="store_true", help="print the groups as JSON only")
    parser.add_argument("--game", choices=("sasaki", "sasku"), default="sasaki",
                        help="the game the table plays (default sasaki)")
    args = parser.parse_args(argv)
    if args.quick:
        args.hands, args.scale = min(args.hands, 2), 0.1
    if args.hands < 1 or not 0 < args.scale <= 1:
        parser.error("--hands must be at least 1 and --scale in (0, 1]")
    game: Any
    if args.game == "sasku":   # every decision one seat's: the fair pace's bid and turn delays, scaled
        fair = dict(SASKU_PACE.delays)
        pace = sasku_pace(bid=fair["bid"] / 1000 * args.scale, turn=fair["turn"] / 1000 * args.scale,
                          answer=SASKU_PACE.answer_deadline, stall=SASKU_PACE.stall_deadline)
        game = SaskuGame(SaskuOptions(target=1000))   # the match runs its --hands deals
    else:
        pace = sasaki_pace(window=WINDOW_SECONDS * args.scale, claim=CLAIM_SECONDS * args.scale,
                           turn=TURN_SECONDS * args.scale)
        game = SasakiGame(TableOptions(lead_card="3H"))
    entropy = SeededEntropy(b"bench/timing/%d" % args.seed)
    identities = [Identity(entropy(32)) for _ in range(4)]
    config = TableConfig(hands=args.hands, game=game, proofs=args.proofs, pace=pace)
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sasaki-timing-") as directory:
        spec = {"seed": args.seed, "identities": identities, "config": config, "dir": directory,
                "timeout": args.timeout, "table_id": entropy(32), "game": args.game}
        peers = play_table(spec)
    rows = groups(peers)
    if args.json:
        print(json.dumps({"groups": rows, "paced": paced(peers)}))
        return 0
    print(f"{args.game}: {args.hands} hand(s) over the TCP mesh on 127.0.0.1, seats {', '.join(SEATS)}; shot clock "
          f"{dict(pace.delays)} ms; {time.monotonic() - began:.0f} s")
    bound = 0.01 / max(1, len(rows))
    print(f"{'kind':8} {'who':10} {'n claim':>8} {'n no':>6} {'median claim':>13} {'median no':>10} {'p':>8}")
    worst_diff, worst_p = 0.0, 1.0
    for r in rows:
        diff = abs(r["median_ms_claim"] - r["median_ms_noclaim"])
        worst_diff, worst_p = max(worst_diff, diff), min(worst_p, r["p"])
        print(f"{r['kind']:8} {r['who']:10} {r['n_claim']:>8} {r['n_noclaim']:>6} "
              f"{r['median_ms_claim']:>10.1f} ms {r['median_ms_noclaim']:>7.1f} ms {r['p']:>8.3g}")
    met = worst_p >= bound and worst_diff <= TARGET_MS
    print(f"target: every p >= {bound:.2g} (0.01 / {len(rows)} groups) and every median difference <= "
          f"{TARGET_MS:g} ms: smallest p {worst_p:.3g}, largest difference {worst_diff:.1f} ms: "
          f"{'met' if met else 'NOT met'}")
    delays = dict(pace.delays)
    print("every answer by kind (both sides together; the kind's delay beside it):")
    for r in paced(peers):
        print(f"  {r['kind']:8} {r['who']:10} n {r['n']:>4}  median {r['median_ms']:>7.1f} ms  "
              f"(delay {delays.get(r['kind'], 0)} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
