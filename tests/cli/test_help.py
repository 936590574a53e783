"""Every command has a --help that exits 0 and says what it does."""

from __future__ import annotations

import pytest

from p2p_sasaki.cli.main import COMMANDS, main

EXPECTED = {
    "play": "create a new table", "host": "table code", "join": "--address", "tables": "--json",
    "demo": "separate processes", "audit": "blame", "export": "sasaki replay", "replay": "game record",
    "simulate": "hands", "resume": "--list", "name": "1-24 printable characters", "view": "step through",
    "tournament": "same deal",
}


@pytest.mark.parametrize("command", COMMANDS)
def test_help(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: sasaki {command}")
    assert EXPECTED[command] in out.replace("\n", " ").replace("  ", " ")


def test_every_command_is_listed(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert command in out


def test_table_options_are_offered(capsys):
    with pytest.raises(SystemExit):
        main(["host", "--help"])
    out = capsys.readouterr().out
    for option in ("--bots", "--hands", "--lead", "--lead-must-contain-3", "--running", "--data-dir", "--interface",
                   "--no-proofs"):
        assert option in out
    assert "--shuffle-rounds" not in out  # the shuffle argument's parameters are fixed (wire version 2)


def test_bad_code_is_one_sentence(capsys):
    assert main(["join", "7-notaword-sausage", "--address", "127.0.0.1:9", "--data-dir", "/tmp/sasaki-test-x"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sasaki: ") and err.count("\n") == 1


def test_docs_give_the_one_timeout_default_the_commands_use():
    """docs/usage.md names `--timeout`'s default wherever it mentions it, and always the
    parsers' (a person's time to claim in a window; issue 20 found 30 and 20)."""
    import re

    from p2p_sasaki.cli.main import build_parser
    from tests.cli.peers import ROOT

    defaults = set()
    for command in ("host", "join", "play", "demo"):
        args = build_parser(only=command).parse_args([command] + (["1-a-b"] if command == "join" else []))
        defaults.add(args.timeout)
    assert defaults == {30.0}
    text = (ROOT / "docs" / "usage.md").read_text().replace("\n  ", " ").replace("\n", " ")
    # "`--timeout`, 30)" and "--timeout ... default 30", with no other option in between
    said = [int(n) for n in re.findall(r"`--timeout`, (\d+)\)", text)]
    said += [int(n) for n in re.findall(r"(?<![-\w])--timeout\b(?:[^`.]|`[^-])*?default:? (\d+)", text)]
    assert len(said) >= 3 and set(said) == {30}, said
