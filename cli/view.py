"""``sasaki view FILE [--no-browser]``: watch a table transcript as a step-through replay.

The transcript is audited first (``sasaki audit``'s checks); every hand it verifies is
then shown step by step on a page on 127.0.0.1 (its address printed, as ``--web``
does): the deal with every seat's cards (the keys are revealed at a hand's end, so a
verified hand's cards are known to anyone), each play, each window and its answer,
the hand's outcome, and last the audit's verdict, which says where a damaged or
unfinished transcript stops. ``Previous`` and ``Next`` (or the arrow keys) step.

:func:`replay_steps` builds the steps (pure, tested without a browser):

>>> replay_steps(b"not a transcript").steps[-1].text
'sasaki view: this is not a transcript: it is text (a game record is checked with \\'sasaki replay\\').'
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2p_sasaki.cards import CardSet
from p2p_sasaki.cli.commands import COMMANDS

__all__ = ["ViewStep", "ReplayView", "replay_steps", "register"]

SEATS = 4
_WINDOW_NAMES = {"run": "Run", "stop": "Stop", "chata": "Chata", "kkojda": "Kkojda", "expose": "Show"}


@dataclass(frozen=True)
class ViewStep:
    """One step of the replay: what happened, and the table after it."""

    hand_no: int                          # 0: before any hand (the verdict of an empty file)
    text: str                             # what happened at this step, in words
    cards: tuple[tuple[str, ...], ...]    # each seat's cards after it (empty when unknown)
    top: tuple[str, ...] = ()             # the top play's cards
    top_text: str = ""                    # "S2 Bot 3: pair of 9"
    next_text: str = ""                   # who answers next: "S3's turn", "Chata window: S1 could claim"
    finish: tuple[int, ...] = ()
    multiplier: int = 1
    verdict: bool = False                 # the audit's verdict (the last step)


@dataclass(frozen=True)
class ReplayView:
    title: str
    labels: tuple[str, ...]
    steps: tuple[ViewStep, ...]
    ok: bool                              # the transcript verified to its end


def _claimants(hand: Any, labels: tuple[str, ...]) -> list[str]:
    """Who could claim in the open window, and with what (every card is known in a replay)."""
    from p2p_sasaki.sasaki.hand import Decline

    could = []
    for seat in hand.decision.seats:
        claims = [a for a in hand.legal_actions(seat) if not isinstance(a, Decline)]
        if claims:
            could.append(f"{labels[seat]} could claim with {claims[0].cards}")
    return could


def _window_text(hand: Any, labels: tuple[str, ...]) -> str:
    """An open window, and who could claim in it."""
    name = _WINDOW_NAMES.get(hand.decision.kind.value, hand.decision.kind.value)
    could = _claimants(hand, labels)
    return f"{name} window: " + ("; ".join(could) if could else "nobody can claim") + "."


def _next_text(hand: Any, labels: tuple[str, ...]) -> str:
    from p2p_sasaki.sasaki.hand import DecisionKind

    decision = hand.decision
    if decision.kind is DecisionKind.OVER:
        return "The hand is over."
    if decision.kind is DecisionKind.TURN:
        seat = decision.seats[0]
        return f"{labels[seat]}'s turn" + (" to lead." if hand.top is None else ".")
    return _window_text(hand, labels)


def _table(hand_no: int, hand: Any, text: str, labels: tuple[str, ...]) -> ViewStep:
    top_seat = hand.top_seat
    return ViewStep(hand_no, text, tuple(tuple(str(c) for c in hand.cards(s)) for s in range(SEATS)),
                    tuple(str(c) for c in hand.top_cards),
                    f"{labels[top_seat]}: {hand.top}" if top_seat is not None and hand.top is not None else "",
                    _next_text(hand, labels), hand.finish, hand.multiplier)


def _hand_steps(hand_no: int, full: Any, labels: tuple[str, ...]) -> list[ViewStep]:
    """Every step of one finished hand, replayed from its game record (declines filled in)."""
    from p2p_sasaki.cli.render import action_text, outcome_lines
    from p2p_sasaki.sasaki.hand import Chata, Decline, Expose, Kkojda, Run, Stop
    from p2p_sasaki.sasaki.records import replay, write_record

    def said(line: str) -> str:   # the engine's lines name seats "S2": the replay's labels do
        for seat in range(SEATS - 1, -1, -1):
            line = line.replace(f"S{seat}", labels[seat]) if labels[seat] != f"S{seat}" else line
        return line

    lines = write_record(full).splitlines()
    tags = [line for line in lines if line.startswith("[")]
    actions = [line for line in lines if line and not line.startswith("[")]
    before = replay("\n".join(tags) + "\n")
    dealt = "; ".join(f"{labels[s]} {CardSet(full.dealt[s])}" for s in range(SEATS))
    steps = [_table(hand_no, before, f"Hand {hand_no} is dealt (lead card {full.lead_card}): {dealt}.", labels)]
    if before.decision.is_window and _claimants(before, labels):
        steps.append(dataclasses.replace(steps[-1], text=_window_text(before, labels)))
    for k in range(len(actions)):
        after = replay("\n".join(tags + actions[:k + 1]) + "\n")
        new = [a for a in after.history[len(before.history):] if not isinstance(a, Decline)]
        claims = (Run, Stop, Chata, Kkojda, Expose)
        words = []
        if before.decision.is_window and _claimants(before, labels) and not any(isinstance(a, claims) for a in new):
            name = _WINDOW_NAMES.get(before.decision.kind.value, "")
            words.append(f"Nobody claims the {name.lower()} window.")
        lead = before.top is None
        words += [action_text(a, lead) for a in new]
        out = [s for s in after.finish if s not in before.finish]
        words += [f"S{s} goes out ({('1st', '2nd', '3rd')[after.finish.index(s)]})." for s in out
                  if after.finish.index(s) < 3]
        if after.is_over:
            words += outcome_lines(after)
        steps.append(_table(hand_no, after, said(" ".join(w if w.endswith(".") else w + "." for w in words)), labels))
        if after.decision.is_window and _claimants(after, labels):   # a window somebody could claim
            steps.append(dataclasses.replace(steps[-1], text=_window_text(after, labels)))
        before = after
    return steps


def replay_steps(data: bytes) -> ReplayView:
    """The replay of the transcript ``data``: the steps of every verified hand, then the verdict."""
    from p2p_sasaki.cli.audit import describe, not_a_transcript

    problem = not_a_transcript(data)
    if problem is not None:
        text = f"sasaki view: this is not a transcript: {problem}."
        return ReplayView("Not a transcript", tuple(f"S{s}" for s in range(SEATS)),
                          (ViewStep(0, text, ((),) * SEATS, verdict=True),), False)
    from p2p_sasaki.protocol.sasaki_game import SasakiState
    from p2p_sasaki.protocol.sasku_game import SaskuState
    from p2p_sasaki.protocol.table_audit import audit_table

    audit = audit_table(data)
    labels = tuple(audit.label(s) for s in range(SEATS))
    steps: list[ViewStep] = []
    for number, state in enumerate(audit.states, 1):
        if isinstance(state, SasakiState):
            steps += _hand_steps(number, state.hand, labels)
        elif isinstance(state, SaskuState) and state.deal.viewer is None:   # cli/view_sasku.py
            from p2p_sasaki.cli.view_sasku import deal_steps

            steps += deal_steps(state.deal.deal_number + 1, state.deal, labels, ViewStep)
    verdict = describe(audit).splitlines()[0]
    stops = audit.stops_at
    where = ""
    if stops is not None and audit.status.value != "complete":
        where = (f" The verified part ends before record {stops.record} (hand {stops.hand}); "
                 "nothing after that point is shown.")
    last = steps[-1] if steps else ViewStep(0, "", ((),) * SEATS)
    steps.append(dataclasses.replace(last, text=f"Audit: {verdict}{where}", verdict=True))
    noun = "deal(s)" if audit.header is not None and audit.header.game == "sasku" else "hand(s)"
    return ReplayView(f"{len(audit.states)} {noun}", labels, tuple(steps), bool(audit.ok and audit.complete))


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "view", help=COMMANDS["view"],
        description="Audit a table transcript (.sasaki), then show it in your browser as a replay you "
                    "step through: every seat's cards, each play, each window and its answer, the "
                    "audit's verdict. The page is served on 127.0.0.1 behind a secret address, printed "
                    "here; Ctrl-C ends it.")
    parser.add_argument("file", metavar="FILE", help="a transcript written by sasaki (.sasaki)")
    parser.add_argument("--no-browser", action="store_true", help="print the address, do not open a browser")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        data = path.read_bytes()
    except OSError as error:
        print(f"sasaki view: cannot read {path}: {error.strerror or error}.", file=sys.stderr)
        return 2
    view = replay_steps(data)
    if view.steps[-1].hand_no == 0 and len(view.steps) == 1 and view.title == "Not a transcript":
        print(view.steps[-1].text.replace("this is", f"{path} is"), file=sys.stderr)
        return 5
    import trio

    from p2p_sasaki.cli.common import _open_browser
    from p2p_sasaki.cli.web.replay_page import replay_page
    from p2p_sasaki.cli.web.server import PageServer

    server = PageServer(replay_page(path.name, view_json(view)))

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(server.serve)
            print(f"{path.name}: {view.steps[-1].text}")
            print(f"The replay in the browser: {url}", flush=True)
            print("Ctrl-C ends it.", flush=True)
            if not args.no_browser:
                nursery.start_soon(trio.to_thread.run_sync, _open_browser, url)

    try:
        trio.run(main)
    except* KeyboardInterrupt:    # Ctrl-C is how the replay ends (from the server task too)
        print("\nThe replay page is closed.")
    return 0


def view_json(view: ReplayView) -> dict[str, Any]:
    """The replay as the page reads it."""
    plain: dict[str, Any] = json.loads(json.dumps(dataclasses.asdict(view)))
    return plain
