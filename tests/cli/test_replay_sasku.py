"""cli/replay.py for Sasku: `sasaki replay [--json] FILE` picks the game from the Game tag."""

import json
import re
from pathlib import Path

from p2p_sasaki.cli.main import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules-sasku.md"


def doc_example():
    text = DOC.read_text(encoding="utf-8")
    record = text.split("```text\n", 1)[1].split("```", 1)[0]
    expected = re.search(r"```json\n(.*?)\n```", text, re.S).group(1)
    return record, expected


def replay(tmp_path, capsys, text, *flags):
    path = tmp_path / "deal.txt"
    path.write_text(text, encoding="utf-8")
    status = main(["replay", *flags, str(path)])
    out, err = capsys.readouterr()
    return status, out, err


def test_docs_example_gives_the_exact_json(tmp_path, capsys):
    record, expected = doc_example()
    status, out, err = replay(tmp_path, capsys, record, "--json")
    assert (status, err) == (0, "")
    assert out == expected + "\n"
    assert json.loads(out) == {"ok": True, "complete": True, "declarer": 0, "trump": "H", "diamonds": False,
                               "card_points": [99, 21], "tricks": [8, 1], "points": [2, 0]}


def cut(after_line):
    """The docs example up to the first line starting with ``after_line``."""
    record, _ = doc_example()
    lines = record.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith(after_line))
    return "\n".join(lines[:end + 1]) + "\n"


def test_json_during_the_deal(tmp_path, capsys):
    """sasku-rules.md, Records: declarer null during the auction, trump null until named,
    card points and tricks of finished tricks only, points null until complete."""
    partial: dict[str, dict[str, object]] = {
        "S3 bid 6": {"declarer": None, "trump": None, "card_points": [0, 0], "tricks": [0, 0]},
        "S3 pass": {"declarer": 0, "trump": None, "card_points": [0, 0], "tricks": [0, 0]},
        "S0 trump H": {"declarer": 0, "trump": "H", "card_points": [0, 0], "tricks": [0, 0]},
        "S3 play JC": {"declarer": 0, "trump": "H", "card_points": [0, 0], "tricks": [0, 0]},
        "S0 play QS": {"declarer": 0, "trump": "H", "card_points": [18, 0], "tricks": [1, 0]},
    }
    for line, fields in partial.items():
        status, out, _ = replay(tmp_path, capsys, cut(line), "--json")
        assert status == 0
        assert json.loads(out) == {"ok": True, "complete": False, "diamonds": False, "points": None, **fields}


def test_json_diamonds_and_ulekula(tmp_path, capsys):
    record = cut("S3 return 8C")
    status, out, _ = replay(tmp_path, capsys, record + "S1 pass\nS2 diamonds\n", "--json")
    assert json.loads(out) == {"ok": True, "complete": False, "declarer": 2, "trump": "D", "diamonds": True,
                               "card_points": [0, 0], "tricks": [0, 0], "points": None}
    status, out, _ = replay(tmp_path, capsys, record + "S1 pass\nS2 pass\nS3 pass\nS0 pass\n", "--json")
    assert json.loads(out) == {"ok": True, "complete": False, "declarer": None, "trump": "D", "diamonds": True,
                               "card_points": [0, 0], "tricks": [0, 0], "points": None}


def test_an_illegal_line(tmp_path, capsys):
    record = cut("S1 play AH").replace("S1 play AH", "S1 play 7H")
    record += "S2 play 9S\n"
    status, out, _ = replay(tmp_path, capsys, record, "--json")
    assert status == 1
    line = len(record.splitlines())
    assert json.loads(out) == {"ok": False, "line": line,
                               "error": "S2 must play a trump: a trump was led and S2 holds one"}
    status, out, _ = replay(tmp_path, capsys, record)
    rule = "S2 must play a trump: a trump was led and S2 holds one"
    assert status == 1 and out == f"{tmp_path / 'deal.txt'}:{line}: {rule}\n"


def test_the_game_tag_picks_the_rules(tmp_path, capsys):
    status, out, _ = replay(tmp_path, capsys, '[Game "whist"]\n', "--json")
    assert status == 1
    assert json.loads(out) == {"ok": False, "line": 1, "error": "unknown game 'whist': the Game tag is sasaki or sasku"}
    status, out, _ = replay(tmp_path, capsys, '[Deal "1"\n[Game "whist"]\n', "--json")
    assert status == 1 and json.loads(out)["line"] == 1  # the first bad line
    record, _ = doc_example()
    status, out, _ = replay(tmp_path, capsys, record.replace('[Game "sasku"]', ""), "--json")
    assert status == 1 and json.loads(out) == {"ok": False, "line": 4, "error": "seat 0 must be dealt 12 cards, not 9"}
    status, out, _ = replay(tmp_path, capsys, '[Game "sasaki"]\n' + record.replace('[Game "sasku"]\n', ""), "--json")
    assert status == 1 and json.loads(out)["line"] == 4


def test_readable_summary(tmp_path, capsys):
    record, _ = doc_example()
    status, out, _ = replay(tmp_path, capsys, record)
    assert status == 0
    assert "every line is legal" in out
    assert "Sasku, deal 1: dealer S0, forehand S1." in out
    assert "Auction: declarer S0; trump hearts." in out
    assert "Tricks: pair 0 (S0, S2) 8, pair 1 (S1, S3) 1; card points 99 - 21." in out
    assert "Game points: pair 0 2, pair 1 0." in out
    status, out, _ = replay(tmp_path, capsys, cut("S2 bid 5"))
    assert "The record stops before the end of the deal; next: bid for S3." in out


def test_lines_are_newline_separated_a_lone_cr_is_not_a_line_break(tmp_path, capsys):
    """docs/records.md: line numbers count \\n-separated lines (CRLF files read as usual)."""
    record = cut("S0 bid 7").replace("\n", "\r\n")
    status, out, _ = replay(tmp_path, capsys, record, "--json")
    assert status == 0 and json.loads(out)["declarer"] is None
    path = tmp_path / "cr.txt"
    head = cut("S1 pass")
    path.write_bytes((head + "S2 bid 5\rS3 pass\nS0 bidx\n").encode())
    assert main(["replay", "--json", str(path)]) == 1
    out, _ = capsys.readouterr()
    assert json.loads(out) == {"ok": False, "line": len(head.splitlines()) + 1,
                               "error": "bid takes one number of tricks, as in 'S2 bid 6'"}
