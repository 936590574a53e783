"""``sasaki host --game sasku --pairs NAME+NAME``: partners chosen by the players' names.

The two named players form one pair, the other two the other; partners sit opposite
(protocol/sasku_game.py, ``SaskuGame(pairs=(A, B))``: the header's ``pairs=A+B``, roster
indices, signed by every member at GENESIS). Without ``--pairs`` the seating draw decides
the pairs. The creator's waiting room keeps the seats the named players still need: a
joiner that would leave a named player without a seat, or that bears a chosen name already
at the table, is refused with one sentence (protocol/handshake.py, ``JoinAdmissions.fits``).

>>> parse_pairs(" Mina + Jun ")
('Mina', 'Jun')
>>> fits = seating_fits(("Mina", "Jun"))
>>> from p2p_sasaki.protocol.net import TableMember
>>> ana, leo = (TableMember(bytes([i]) * 32, "", 1, bytes(32), n) for i, n in ((1, "Ana"), (2, "Leo")))
>>> fits((ana, leo), 4) is None, fits((ana, leo, TableMember(bytes([3]) * 32, "", 1, bytes(32), "Bo")), 4)
(True, 'the creator keeps seats for Mina and Jun, chosen as partners (--pairs Mina+Jun)')
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from p2p_sasaki.cli.common import CliError, say_error
from p2p_sasaki.cli.name import clean_name
from p2p_sasaki.protocol.messages import default_name
from p2p_sasaki.protocol.net import TableMember

PAIRS_WITH_SASAKI = "--pairs is for --game sasku (Sasaki has no partners): add --game sasku, or leave --pairs out"


class PairsError(CliError):
    """``--pairs`` names a player the table does not have (one sentence; exit status 2)."""


def add_pairs_option(parser: argparse.ArgumentParser) -> None:
    """``--pairs NAME+NAME`` (``sasaki host`` and ``play``, when creating a table)."""
    parser.add_argument("--pairs", type=parse_pairs, default=None, metavar="NAME+NAME",
                        help="sasku: these two players (by their names) are partners and sit opposite, the "
                             "other two the other pair (default: the seating draw decides the pairs)")


def refuse_pairs_for_sasaki(args: argparse.Namespace) -> bool:
    """Say that ``--pairs`` is Sasku's and return True when it is given for Sasaki."""
    if getattr(args, "pairs", None) is not None and getattr(args, "game", "sasaki") != "sasku":
        say_error(PAIRS_WITH_SASAKI)
        return True
    return False


def parse_pairs(text: str) -> tuple[str, str]:
    """``NAME+NAME`` as two different names (an argparse type: a usage error, status 2)."""
    parts = text.split("+")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"{text!r} is not two names joined by +, like Mina+Jun")
    try:
        first, second = (clean_name(part) for part in parts)
    except CliError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if first == second:
        raise argparse.ArgumentTypeError(f"{first} is named twice: --pairs names two different players, "
                                         "like Mina+Jun")
    return first, second


def _name(member: TableMember) -> str:
    return member.name or default_name(member.key)


def _flag(names: tuple[str, str]) -> str:
    return f"--pairs {names[0]}+{names[1]}"


def seating_fits(names: tuple[str, str]) -> Callable[[tuple[TableMember, ...], int], str | None]:
    """The waiting room's rule for ``--pairs``: the members a joiner would make (the creator
    first) leave a seat for every chosen name not yet at the table, and hold no chosen
    name twice; else the sentence the joiner is refused with."""

    def fits(members: tuple[TableMember, ...], seats: int) -> str | None:
        present = [_name(member) for member in members]
        for name in names:
            if present.count(name) > 1:
                return (f"two players would be called {name}, whom the creator chose as a partner by name "
                        f"({_flag(names)}): choose another name to join")
        missing = [name for name in names if name not in present]
        if len(missing) > seats - len(members):
            seat = "a seat" if len(missing) == 1 else "seats"
            return (f"the creator keeps {seat} for {' and '.join(missing)}, chosen as partners "
                    f"({_flag(names)})")
        return None

    return fits


def check_known(names: tuple[str, str], known: Sequence[str], people: int) -> None:
    """Before the table opens: the names of the creator and its ``--bots`` (``known``) and
    the ``people`` seats left for joiners must leave room for both chosen names."""
    for name in names:
        if list(known).count(name) > 1:
            raise PairsError(f"{_flag(names)} cannot tell apart the players called {name}")
    missing = [name for name in names if name not in known]
    if len(missing) > people:
        who = ", ".join(known)
        are = "who are" if len(missing) > 1 else "who is"
        raise PairsError(f"{_flag(names)} names {' and '.join(missing)}, {are} not at this table "
                         f"({who}{' and ' + str(people) + ' player(s) to join' if people else ''})")


def with_pairs(config: Any, members: Sequence[TableMember], names: tuple[str, str]) -> Any:
    """``config`` whose Sasku game seats the two named members as partners (roster indices,
    lower first)."""
    from p2p_sasaki.protocol.sasku_game import SaskuGame

    present = [_name(member) for member in members]
    indices = []
    for name in names:
        if present.count(name) != 1:
            raise PairsError(f"{_flag(names)} names {name}, who is not at this table ({', '.join(present)})"
                             if name not in present else f"{_flag(names)} cannot tell apart the players called {name}")
        indices.append(present.index(name))
    low, high = sorted(indices)
    return dataclasses.replace(config, game=SaskuGame(config.game.options, pairs=(low, high)))


WAITING_ROOM_HINT = ("While you wait: type 'partners NAME+NAME' to make two players partners by their names, "
                     "or 'partners draw' to leave the pairs to the seating draw.")


class WaitingRoomPairs:
    """The creator's choice of partners while the table fills (``--pairs``, then what the
    creator types in the waiting room: :meth:`typed`); ``fits`` is the waiting room's rule
    for it (the join's ``fits``), ``names`` the players seated so far (the creator first).
    Once the table is full (:meth:`full`) the choice is fixed.

    >>> room = WaitingRoomPairs(None, "Ana")
    >>> room.typed("partners Mina+Jun")
    'Partners chosen: Mina and Jun (their seats are kept for them).'
    >>> room.typed("partners Ana+Ana")
    'Ana is named twice: --pairs names two different players, like Mina+Jun.'
    >>> room.typed("partners draw"), room.choice, room.typed("hello")
    ('Partners: the seating draw decides them.', None, "Type 'partners NAME+NAME' or 'partners draw'.")
    """

    def __init__(self, choice: tuple[str, str] | None, creator: str, seats: int = 4) -> None:
        self.choice, self.names, self.seats, self.fixed = choice, [creator], seats, False

    def fits(self, members: tuple[TableMember, ...], seats: int) -> str | None:
        return None if self.choice is None else seating_fits(self.choice)(members, seats)

    def joined(self, member: TableMember) -> None:
        self.names.append(_name(member))

    def left(self, member: TableMember) -> None:
        if _name(member) in self.names[1:]:
            self.names.remove(_name(member))

    def full(self) -> None:
        self.fixed = True

    def typed(self, text: str) -> str:
        """What the creator typed; the sentence to print."""
        words = text.strip().split(None, 1)
        if not words or words[0].lower() != "partners":
            return "Type 'partners NAME+NAME' or 'partners draw'."
        if self.fixed:
            return "The table is full: its seating is fixed."
        argument = words[1].strip() if len(words) > 1 else ""
        if argument.lower() == "draw":
            self.choice = None
            return "Partners: the seating draw decides them."
        try:
            names = parse_pairs(argument)
            check_known(names, self.names, self.seats - len(self.names))
        except (argparse.ArgumentTypeError, PairsError) as error:
            return str(error).rstrip(".") + "."
        self.choice = names
        return f"Partners chosen: {names[0]} and {names[1]} (their seats are kept for them)."
