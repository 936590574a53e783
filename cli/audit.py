"""``sasaki audit FILE [--json] [--follows OLD]``: verify a table transcript end to end
(``sasaki audit DIR``: a tournament folder, cli/tournament_audit.py, with the same statuses).

Every signature, every deal step and proof, every action against the rules, the
scores: ``protocol.table_audit.audit_table``. Exit status (docs/usage.md): 0 complete and
verified; 1 a seat proven at fault by a message it signed; 2 a usage error (a file that
cannot be opened); 3 verified but incomplete (or abandoned); 4 altered, nobody can be
named; 5 unreadable or not a transcript; 6 (``--follows``) FILE verifies but does not
continue OLD (``protocol.table_audit.follows_check``).
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from pathlib import Path
from typing import Any

from p2p_sasaki.cards import CardSet
from p2p_sasaki.cli.commands import COMMANDS


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "audit", help=COMMANDS["audit"],
        description="Check a table's transcript end to end: every signature, the shuffles and "
                    "their proofs, each seat's cards, every play against the rules, the scores. "
                    "Prints the hands and totals, or the seat to blame and why (exit status 1).")
    parser.add_argument("file", metavar="FILE", help="a transcript written by sasaki (.sasaki), or a tournament's "
                                                     "folder (its roster, boards, tables and standings)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("--follows", metavar="OLD",
                        help="also check that FILE is the table that went on from the abandoned table OLD with a "
                             "bot in the empty seat: the link to OLD's final chain hash, the seating, the carried "
                             "totals and the hands left (exit status 6 if not); names the bot's seat")
    parser.set_defaults(func=run)


def audit_file(path: Path) -> Any:
    from p2p_sasaki.protocol.table_audit import audit_table

    return audit_table(Path(path).read_bytes())


def _cards(cards: Any) -> CardSet:
    """A seat's dealt cards as the audit gives them: card indices, a mask or a CardSet."""
    if isinstance(cards, CardSet):
        return cards
    if isinstance(cards, int):
        return CardSet(cards)
    return CardSet(sum(1 << int(index) for index in cards))


def _blame(audit: Any) -> Any:
    blame = getattr(audit, "blame", None)
    if blame is None:
        return None
    return {"seat": blame.seat, "hand": getattr(blame, "hand", None), "slot": blame.slot, "reason": blame.reason}


EXIT = {"complete": 0, "fault": 1, "incomplete": 3, "abandoned": 3, "damaged": 4, "unreadable": 5}
EXIT_USAGE = 2
EXIT_NOT_LINKED = 6


def _mask(cards: Any) -> int:
    if isinstance(cards, CardSet):
        return int(cards.mask)
    if isinstance(cards, int):
        return cards
    return sum(1 << int(index) for index in cards)


def _card_names(audit: Any) -> Any:
    """How the audited game names a seat's dealt cards (deck card indices): Sasaki's deck card
    is its card; Sasku's 36 are named by the game (protocol/sasku_game.py: 6C .. AS)."""
    header = getattr(audit, "header", None)
    if header is not None and getattr(header, "game", "sasaki") != "sasaki":
        from p2p_sasaki.protocol.config import config_of

        try:
            game = config_of(header).game
        except (KeyError, ValueError):
            game = None
        if game is not None:
            return lambda cards: game.cards_name(_mask(cards))
    return lambda cards: str(_cards(cards))


def _hand_entry(hand: Any, forfeit: int | None, name: Any = None) -> Any:
    """A hand's entry: its seats' dealt cards; a forfeited hand's is an object with them and the seat."""
    cards = [(name or (lambda c: str(_cards(c))))(c) for c in hand]
    return cards if forfeit is None else {"cards": cards, "forfeit": forfeit}


def as_json(audit: Any) -> dict[str, Any]:
    blame = _blame(audit)
    status = getattr(audit, "status", None)
    stops_at = getattr(audit, "stops_at", None)
    return {
        "ok": bool(audit.ok),
        "complete": bool(getattr(audit, "complete", True)),
        "hands": [_hand_entry(hand, forfeit, _card_names(audit)) for hand, forfeit in
                  zip(audit.hands, tuple(getattr(audit, "forfeits", ())) + (None,) * len(audit.hands), strict=False)],
        "scores": [list(s) for s in audit.scores],
        "totals": list(audit.totals),
        "blame": blame,
        "status": status.value if status is not None else ("complete" if audit.ok else "fault"),
        "stops_at": None if stops_at is None else {"hand": stops_at.hand, "slot": stops_at.slot,
                                                   "record": stops_at.record},
        "waiting_for": list(getattr(audit, "waiting_for", ())),
        "note": getattr(audit, "note", None),
        "left": list(getattr(audit, "left", ())),
        "names": list(getattr(audit, "names", ())),
        "open_bots": [{"seat": seat, "runner": runner, "moves": moves}
                      for seat, runner, moves in getattr(audit, "open_bots", ())],
        "penalties": [None if p is None else {"hand": p.hand, "seat": p.seat, "slot": p.slot, "reason": p.reason}
                      for p in getattr(audit, "penalties", ())],
    }


def _hands(count: int) -> str:
    return "no hand" if count == 0 else f"{count} hand{'' if count == 1 else 's'}"


def _where(hand: int | None) -> str:
    """Where in the match, for people: hands are numbered from 1; 0 is the seating, before
    the first deal; -1 (or None) is not known."""
    if hand is None or hand < 0:
        return ""
    return "before the first deal" if hand == 0 else f"in hand {hand}"


def describe(audit: Any) -> str:
    """The verdict in words for people: its first line says it once (the demo and a player's
    page show only that line); a second line, where there is one, gives the technical detail.

    >>> from types import SimpleNamespace as A
    >>> print(describe(A(ok=False, complete=False, hands=(), scores=(), totals=(0, 0, 0, 0), status=None,
    ...                  blame=A(seat=None, hand=0, slot=0, reason="record 1: seat 0's prev does not match"),
    ...                  stops_at=A(hand=0, slot=0, record=1))))
    DAMAGED: this file was changed or corrupted after it was written (found at its record 1, before the first deal), so nobody can be blamed; no hand verified before that.
      Detail: record 1: seat 0's prev does not match.
    """  # noqa: E501 (a doctest's expected output is one line)
    data = as_json(audit)
    label = getattr(audit, "label", lambda seat: f"S{seat}")   # "S2 Mina"
    totals = ", ".join(f"{label(s)} {v:+d}" for s, v in enumerate(data["totals"]))
    verified = _hands(len(data["scores"]))
    if data["status"] == "abandoned":
        hands = list(getattr(audit, "abandoned", ()))
        which = (f"hand {hands[0]} was" if len(hands) == 1 else
                 "hands " + ", ".join(map(str, hands)) + " were") if hands else "a hand was"
        gone = " and ".join(label(s) for s in data["left"]) or "a player"
        return (f"ABANDONED: {which} abandoned because {gone} left (not a fault); nobody is blamed. "
                f"{verified.capitalize()} complete and verified; totals {totals}."
                + (f"\n  Detail: {data['note']}." if data["note"] else ""))
    if data["status"] == "incomplete":
        stops = data["stops_at"] or {}
        where = _where(stops.get("hand"))
        waiting = ", ".join(label(s) for s in data["waiting_for"])
        first = (f"INCOMPLETE: the transcript simply stops{' ' + where if where else ''}"
                 + (f", where the table waited for {waiting}" if waiting else "")
                 + f"; nobody is blamed. {verified.capitalize()} verified before that; totals {totals}.")
        return first + (f"\n  Detail: {data['note']}." if data["note"] else "")
    if data["blame"] is not None or not data["ok"]:
        blame = data["blame"] or {"seat": None, "hand": None, "slot": None, "reason": "the transcript does not verify"}
        if blame["seat"] is not None:
            where = _where(blame.get("hand"))
            return (f"FAILED: {label(blame['seat'])} is to blame{' (' + where + ')' if where else ''}: "
                    f"{blame['reason']}. {verified.capitalize()} verified before that.")
        stops = data["stops_at"] or {}
        found = ", ".join(part for part in (f"at its record {stops['record']}" if stops.get("record") else "",
                                            _where(stops.get("hand", blame.get("hand")))) if part)
        return (f"DAMAGED: this file was changed or corrupted after it was written"
                f"{' (found ' + found + ')' if found else ''}, so nobody can be blamed; {verified} verified before "
                f"that.\n  Detail: {blame['reason'].rstrip('.')}.")
    incomplete = "" if data["complete"] else " (the match stops early: not every hand was played)"
    forfeits = "".join(f"; {label(hand['forfeit'])} left hand {number} after the deal and forfeits it"
                       for number, hand in enumerate(data["hands"], 1) if isinstance(hand, dict))
    forfeits += "".join(f"; {label(p['seat'])} broke a rule with hidden cards in hand {p['hand']}, found when the "
                        f"keys were revealed ({p['reason']}): its side loses that hand by the rules' penalty"
                        for p in data["penalties"] if p is not None)
    lines = [f"OK: {len(data['hands'])} hand(s) verified{incomplete}{forfeits}; totals "
             + ", ".join(f"{label(s)} {v:+d}" for s, v in enumerate(data["totals"])) + "."]
    padded = data["scores"] + [None] * len(data["hands"])
    for number, (hand, scores) in enumerate(zip(data["hands"], padded, strict=False), 1):
        lines.append(f"Hand {number}:" + (f" forfeited by {label(hand['forfeit'])}" if isinstance(hand, dict) else ""))
        dealt = hand["cards"] if isinstance(hand, dict) else hand
        lines += [f"  {label(seat)} dealt {cards}" for seat, cards in enumerate(dealt)]
        if scores is not None:
            lines.append("  scores " + ", ".join(f"{label(s)} {v:+d}" for s, v in enumerate(scores)))
    lines += [f"{label(bot['seat'])} played with its hand open to all (a bot run by {label(bot['runner'])}): each of "
              f"its {bot['moves']} move(s) is the open bot's rule, recomputed." for bot in data["open_bots"]]
    return "\n".join(lines)


def not_a_transcript(data: bytes) -> str | None:
    """Why ``data`` is not a transcript at all (no header record first), or None.

    A transcript starts with a framed header record (4-byte length, kind 1); a damaged
    transcript still does, so this never hides tampering behind "not a transcript"."""
    from p2p_sasaki.protocol.transcript import KIND_HEADER, MAX_RECORD_BYTES

    if len(data) >= 5:
        length, kind = struct.unpack(">IB", data[:5])
        if kind == KIND_HEADER and 1 <= length <= MAX_RECORD_BYTES:
            return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "it does not start with a transcript header"
    return "it is text (a game record is checked with 'sasaki replay')" if data else "it is empty"


def run_tournament(args: argparse.Namespace) -> int:
    """``sasaki audit DIR``: the tournament folder's verdict and its standings recomputed."""
    from p2p_sasaki.cli.tournament_audit import audit_tournament, describe_tournament, tournament_json

    audit = audit_tournament(Path(args.file))
    if args.json:
        print(json.dumps(tournament_json(audit)))
    else:
        print(f"{args.file}: {describe_tournament(audit)}")
    return EXIT[audit.status.value]


def run(args: argparse.Namespace) -> int:
    if Path(args.file).is_dir():
        if getattr(args, "follows", None):
            print("sasaki audit: --follows checks a table transcript, not a tournament folder.", file=sys.stderr)
            return EXIT_USAGE
        return run_tournament(args)
    try:
        problem = not_a_transcript(Path(args.file).read_bytes())
        audit = audit_file(args.file) if problem is None else None
    except OSError as error:
        print(f"sasaki audit: cannot read {args.file}: {error.strerror or error}.", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as error:  # a header, then nothing a transcript holds
        problem = f"it is not readable ({error})"
        audit = None
    if audit is None:
        if args.json:
            print(json.dumps({"ok": False, "complete": False, "hands": [], "scores": [], "totals": [], "blame":
                              {"seat": None, "hand": None, "slot": None, "reason": f"not a transcript: {problem}"},
                              "status": "unreadable", "stops_at": None, "waiting_for": [], "note": None,
                              "left": []}))
        else:
            print(f"sasaki audit: {args.file} is not a transcript: {problem}.", file=sys.stderr)
        return EXIT["unreadable"]
    data = as_json(audit)
    follows = None
    if getattr(args, "follows", None):
        try:
            follows = follows_file(Path(args.file), Path(args.follows))
        except OSError as error:
            print(f"sasaki audit: cannot read {args.follows}: {error.strerror or error}.", file=sys.stderr)
            return EXIT_USAGE
        data["follows"] = {"ok": follows.ok, "bot_seat": follows.bot_seat, "problems": list(follows.problems)}
    if args.json:
        print(json.dumps(data))
    elif data["status"] == "unreadable":
        print(f"sasaki audit: {args.file} is not a transcript: {data['blame']['reason']}.", file=sys.stderr)
    else:
        print(f"{args.file}: {describe(audit)}")
        if follows is not None:
            print(describe_follows(follows, args.follows))
    status = EXIT[data["status"]]
    if status == 0 and follows is not None and not follows.ok:
        return EXIT_NOT_LINKED
    return status


def follows_file(new: Path, old: Path) -> Any:
    from p2p_sasaki.protocol.table_audit import follows_check

    return follows_check(new.read_bytes(), old.read_bytes())


def describe_follows(check: Any, old: str) -> str:
    """One sentence: whether the table went on from ``old``, and where the bot sits."""
    if not check.ok:
        return f"It does NOT follow {old}: " + "; ".join(check.problems) + "."
    header = check.new.header
    carried = ", ".join(f"S{s} {v:+d}" for s, v in enumerate(header.carried or (0,) * len(header.roster_keys)))
    return (f"It follows {old}: a bot (a new member) sits in S{check.bot_seat}, the seat abandoned there; "
            f"same seating, totals carried ({carried}), {header.hands} hand(s) left.")
