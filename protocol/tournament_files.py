"""The layout of a tournament's folder: where each file of a tournament lives. Pure paths
(the writer, tnet's command, and the reader, the tournament audit, both use these names).

::

    DIR/tournament.roster          the signed roster and the draw (protocol/tournament.py)
    DIR/round-R/board.board        round R's board: its messages, like a transcript (R from 1)
    DIR/round-R/table-T.sasaki     table T's transcript in round R (T from 1: table 1 is the top
                                   four of the standings); its header names the board as dealer
    DIR/standings.json             the standings as last shown (cli/standings.py)

>>> folder = TournamentFolder(PurePosixPath("club"))
>>> str(folder.table(2, 1)), str(folder.board(2)), str(folder.roster)
('club/round-2/table-1.sasaki', 'club/round-2/board.board', 'club/tournament.roster')
>>> parse_table_name("table-3.sasaki"), parse_round_name("round-12"), parse_round_name("round-01")
(3, 12, None)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePath, PurePosixPath  # noqa: F401 (PurePosixPath: the doctest)

__all__ = ["ROSTER_FILE", "STANDINGS_FILE", "BOARD_FILE", "TournamentFolder", "parse_round_name", "parse_table_name"]

ROSTER_FILE = "tournament.roster"
STANDINGS_FILE = "standings.json"
BOARD_FILE = "board.board"
_ROUND = re.compile(r"round-([1-9][0-9]*)")
_TABLE = re.compile(r"table-([1-9][0-9]*)\.sasaki")


def parse_round_name(name: str) -> int | None:
    """R of a folder named ``round-R`` (R from 1, no leading zero), else None."""
    match = _ROUND.fullmatch(name)
    return int(match.group(1)) if match else None


def parse_table_name(name: str) -> int | None:
    """T of a file named ``table-T.sasaki`` (T from 1, no leading zero), else None."""
    match = _TABLE.fullmatch(name)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class TournamentFolder:
    """The paths of one tournament folder (rounds and tables numbered from 1, as people say
    them; table T of round R is ``Seating.tables[T - 1]``)."""

    path: PurePath

    @property
    def roster(self) -> PurePath:
        return self.path / ROSTER_FILE

    @property
    def standings(self) -> PurePath:
        return self.path / STANDINGS_FILE

    def round_dir(self, round_no: int) -> PurePath:
        if round_no < 1:
            raise ValueError("rounds are numbered from 1")
        return self.path / f"round-{round_no}"

    def board(self, round_no: int) -> PurePath:
        return self.round_dir(round_no) / BOARD_FILE

    def table(self, round_no: int, table_no: int) -> PurePath:
        if table_no < 1:
            raise ValueError("tables are numbered from 1")
        return self.round_dir(round_no) / f"table-{table_no}.sasaki"

    def rounds_on_disk(self) -> tuple[int, ...]:
        """The round numbers that have a folder (on a real file system), in order."""
        folder = Path(self.path)
        if not folder.is_dir():
            return ()
        return tuple(sorted(r for r in (parse_round_name(p.name) for p in folder.iterdir() if p.is_dir())
                            if r is not None))

    def tables_on_disk(self, round_no: int) -> tuple[int, ...]:
        """The table numbers of a round that have a transcript on disk, in order."""
        folder = Path(self.round_dir(round_no))
        if not folder.is_dir():
            return ()
        return tuple(sorted(t for t in (parse_table_name(p.name) for p in folder.iterdir() if p.is_file())
                            if t is not None))
