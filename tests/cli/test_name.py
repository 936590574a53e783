"""cli/name.py: ``sasaki name [NEW]``, the name rule as a person meets it, the first-time
question at a terminal, and the tables' creator choice (protocol/net/join.py ``pick_table``)."""

from __future__ import annotations

import stat
import sys

import pexpect
import pytest

from p2p_sasaki.cli.main import main
from p2p_sasaki.protocol.net import (
    PROTOCOL_VERSION,
    AmbiguousTableError,
    TableAd,
    TableFullError,
    TableNotFoundError,
    pick_table,
)
from tests.cli.peers import ROOT, env


def test_name_shows_sets_and_refuses_in_one_sentence(tmp_path, capsys):
    data = ["--data-dir", str(tmp_path)]
    assert main(["name", *data]) == 0
    assert capsys.readouterr().out == "You have no name yet; choose one with 'sasaki name NEW'.\n"
    assert main(["name", "  Mina  ", *data]) == 0
    assert capsys.readouterr().out == "Your name is now Mina.\n"
    assert (tmp_path / "name").read_text(encoding="utf-8") == "Mina\n"
    assert stat.S_IMODE((tmp_path / "name").stat().st_mode) == 0o600     # owner-only, like the identity
    assert main(["name", *data]) == 0 and capsys.readouterr().out == "Mina\n"
    for bad, why in (("", "a name is 1 to 24 characters"), ("x" * 25, "a name is 1 to 24 characters"),
                     ("Mi\x1b[2Jna", "a name cannot hold control or invisible characters"),
                     ("Mi\u202ena", "a name cannot hold control or invisible characters"),
                     ("Mi\nna", "a name cannot hold control or invisible characters")):
        assert main(["name", bad, *data]) == 1
        captured = capsys.readouterr()
        assert captured.err == f"sasaki: {bad!r} is not a name: {why}.\n" and captured.out == ""
    assert main(["name", "Ünal Öz", *data]) == 0 and capsys.readouterr().out == "Your name is now Ünal Öz.\n"
    (tmp_path / "name").write_text("bad\x07name\n")
    assert main(["name", *data]) == 1
    assert capsys.readouterr().err == (f"sasaki: {tmp_path / 'name'} does not hold a valid name; set it again "
                                       "with 'sasaki name NEW'.\n")


def test_a_person_at_a_terminal_is_asked_once_and_the_bad_name_again(tmp_path):
    """The first table asks (default: the login name); the answer is kept for the next."""
    argv = ["-P", "-m", "p2p_sasaki", "host", "--no-mdns", "--interface", "127.0.0.1", "--data-dir", str(tmp_path)]
    child = pexpect.spawn(sys.executable, argv, cwd=str(ROOT), env=env(), encoding="utf-8", timeout=30)
    child.expect(r"Your name at the table \(1-24 characters\)( \[[^\]]*\])?:")
    child.sendline("x" * 30)
    child.expect(r"is not a name: a name is 1 to 24 characters\. Type another name:")
    child.sendline("  Mina ")
    child.expect("Saved. Change it any time with 'sasaki name NEW'.")
    child.expect("Table code: ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert (tmp_path / "name").read_text(encoding="utf-8") == "Mina\n"


def ad(name: str, nameplate: str = "19", creator: str | None = "Mina", full: bool = False) -> TableAd:
    return TableAd(name, nameplate, 4 if full else 2, 4000, ("10.0.0.5",), PROTOCOL_VERSION, creator, full)


def test_a_joiner_picks_one_table_by_its_creator_and_never_two():
    mina, jun, other = ad("19-a"), ad("19-b", creator="Jun"), ad("7-c", "7", "Leo")
    assert pick_table([other, mina], "19") == mina
    with pytest.raises(AmbiguousTableError, match=r"^2 tables numbered 19 are on the local network, made by "
                                                  r"Mina, Jun; say whose with --creator NAME$") as info:
        pick_table([mina, other, jun], "19")
    assert info.value.tables == (mina, jun)
    assert pick_table([mina, jun], "19", creator="Jun") == jun
    with pytest.raises(TableNotFoundError, match=r"^no table 19 made by Leo is on the local network \(table 19 "
                                                 r"here is made by Mina, Jun\)$"):
        pick_table([mina, jun], "19", creator="Leo")
    with pytest.raises(TableNotFoundError, match="^no table 19 is on the local network$"):
        pick_table([other], "19")
    # a full or started table is not tried: the code's guesses stay with the creator
    with pytest.raises(TableFullError, match="^table 19 is full$"):
        pick_table([ad("19-a", full=True), jun], "19", creator="Mina")
    with pytest.raises(AmbiguousTableError, match=r"made by Mina \(full\), Jun;"):
        pick_table([ad("19-a", full=True), jun], "19")
    # two tables by one name: only the address tells them apart
    with pytest.raises(AmbiguousTableError, match="use --address HOST:PORT$"):
        pick_table([mina, ad("19-d")], "19", creator="Mina")
    # another protocol version is not a candidate
    assert pick_table([TableAd("19-e", "19", 1, 1, (), PROTOCOL_VERSION + 1, "Eve"), mina], "19") == mina
