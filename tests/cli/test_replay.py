"""cli/replay.py: `sasaki replay [--json] FILE`."""

import json
import re
from pathlib import Path

from p2p_sasaki.cli.main import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "records.md"


def doc_example():
    text = DOC.read_text(encoding="utf-8")
    record = text.split("```text\n", 1)[1].split("```", 1)[0]
    expected = re.search(r"```json\n(.*?)\n```", text, re.S).group(1)
    return record, expected


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_docs_example_gives_the_exact_json(tmp_path, capsys):
    record, expected = doc_example()
    path = tmp_path / "example.txt"
    path.write_text(record, encoding="utf-8")
    status, out, err = run(capsys, "replay", "--json", str(path))
    assert status == 0 and err == ""
    assert out == expected + "\n"
    assert json.loads(out) == {"ok": True, "complete": True, "finish": [1, 0, 2, 3], "red": [2, 3],
                               "multiplier": 4, "scores": [8, 8, -8, -8]}


def test_readable_summary(tmp_path, capsys):
    record, _ = doc_example()
    path = tmp_path / "example.txt"
    path.write_text(record, encoding="utf-8")
    status, out, _ = run(capsys, "replay", str(path))
    assert status == 0
    assert "every line is legal" in out
    assert "Teams: red partners S2, S3 against S0, S1." in out
    assert "Multiplier: x4." in out
    assert "Finishing order: S1, S0, S2, S3." in out
    assert "Scores: S0 +8, S1 +8, S2 -8, S3 -8." in out


def test_incomplete_record_json(tmp_path, capsys):
    record, _ = doc_example()
    lines = record.splitlines()
    cut = next(i for i, line in enumerate(lines) if line.startswith("S1 play AH"))
    path = tmp_path / "part.txt"
    path.write_text("\n".join(lines[:cut + 1]) + "\n", encoding="utf-8")
    status, out, _ = run(capsys, "replay", "--json", str(path))
    assert status == 0
    assert json.loads(out) == {"ok": True, "complete": False, "finish": [], "red": [2, 3],
                               "multiplier": 4, "scores": None}


def test_bad_line_json(tmp_path, capsys):
    record, _ = doc_example()
    lines = record.splitlines()
    bad = next(i for i, line in enumerate(lines) if line.startswith("S0 stop"))
    lines.insert(bad + 1, "S0 stop")
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out, _ = run(capsys, "replay", "--json", str(path))
    assert status == 1
    assert out.count("\n") == 1
    assert json.loads(out) == {"ok": False, "line": bad + 2, "error": "S0 has already called Stop"}
    status, out, _ = run(capsys, "replay", str(path))
    assert status == 1 and out == f"{path}:{bad + 2}: S0 has already called Stop\n"


def test_unreadable_file(tmp_path, capsys):
    status, out, err = run(capsys, "replay", "--json", str(tmp_path / "missing.txt"))
    assert status == 2 and out == ""
    assert err == f"sasaki replay: cannot read {tmp_path / 'missing.txt'}: No such file or directory.\n"
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    status, out, err = run(capsys, "replay", "--json", str(binary))
    assert status == 2 and err.count("\n") == 1 and "not UTF-8" in err
