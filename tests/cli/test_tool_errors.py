"""The tools' errors for people: one sentence on stderr and a nonzero status, never a
traceback; a damaged transcript's verdict in plain words, said once (issue 20, finding 10)."""

from __future__ import annotations

from types import SimpleNamespace

from p2p_sasaki.cli.audit import describe
from p2p_sasaki.cli.main import main


def test_export_to_an_existing_file_is_one_sentence(tmp_path, capsys):
    target = tmp_path / "records.txt"
    target.write_text("keep me\n")
    status = main(["export", str(tmp_path / "any.sasaki"), "--out", str(target)])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err == (f"sasaki export: --out {target} is a file, not a directory; name a directory (it is created "
                   "if missing).\n")
    assert target.read_text() == "keep me\n"


def test_audit_of_something_that_is_no_transcript_says_so_on_stderr(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    assert main(["audit", str(notes)]) == 5
    out, err = capsys.readouterr()
    assert out == "" and err == (f"sasaki audit: {notes} is not a transcript: it is text (a game record is "
                                 "checked with 'sasaki replay').\n")


def test_simulate_with_a_negative_number_of_hands_is_a_usage_error_on_stderr(capsys):
    assert main(["simulate", "--hands", "-5"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "sasaki simulate: --hands must be at least 1, not -5.\n"


def audit(status, blame=None, stops_at=None, waiting_for=(), note=None, scores=()):
    return SimpleNamespace(ok=blame is None, complete=False, hands=(), scores=scores, totals=(0, 0, 0, 0),
                           blame=blame, status=SimpleNamespace(value=status), stops_at=stops_at,
                           waiting_for=waiting_for, note=note, left=(), names=(),
                           label=lambda seat: ("S0 Ana", "S1", "S2 Bo", "S3")[seat])


def test_a_damaged_file_is_said_once_in_plain_words_and_never_hand_0():
    reason = "record 1: seat 0's prev does not match the agreed state"
    text = describe(audit("damaged", SimpleNamespace(seat=None, hand=0, slot=0, reason=reason),
                          SimpleNamespace(hand=0, slot=0, record=1)))
    first, detail = text.splitlines()
    assert first == ("DAMAGED: this file was changed or corrupted after it was written (found at its record 1, "
                     "before the first deal), so nobody can be blamed; no hand verified before that.")
    assert detail == "  Detail: record 1: seat 0's prev does not match the agreed state."
    assert text.count("nobody can be") == 1 and "hand 0" not in text and "message" not in text


def test_a_damaged_hand_and_a_fault_name_the_hand_from_1():
    damaged = describe(audit("damaged", SimpleNamespace(seat=None, hand=2, slot=7, reason="record 90 is extra"),
                             SimpleNamespace(hand=2, slot=7, record=90), scores=((1, -1, 1, -1),)))
    assert damaged.splitlines()[0].endswith("(found at its record 90, in hand 2), so nobody can be blamed; "
                                            "1 hand verified before that.")
    fault = describe(audit("fault", SimpleNamespace(seat=2, hand=1, slot=30, reason="S2 does not hold TH"),
                           SimpleNamespace(hand=1, slot=30, record=61)))
    assert fault == "FAILED: S2 Bo is to blame (in hand 1): S2 does not hold TH. No hand verified before that."


def test_an_incomplete_transcript_says_where_it_stops_and_whom_the_table_waited_for():
    text = describe(audit("incomplete", None, SimpleNamespace(hand=1, slot=35, record=70), waiting_for=(0,),
                          note="the transcript stops at hand 1 slot 35 (record 70), waiting for seat(s) 0"))
    first, detail = text.splitlines()
    assert first == ("INCOMPLETE: the transcript simply stops in hand 1, where the table waited for S0 Ana; nobody "
                     "is blamed. No hand verified before that; totals S0 Ana +0, S1 +0, S2 Bo +0, S3 +0.")
    assert "slot" not in first and "record" not in first and detail.startswith("  Detail: ")


def test_an_abandoned_table_names_the_hand_and_who_left_once():
    verdict = audit("abandoned", note="hand 1 was abandoned at slot 23: S2 left during hand 1; the hand is void; "
                                      "S2 left (not a fault)")
    verdict.left, verdict.abandoned = (2,), (1,)
    first, detail = describe(verdict).splitlines()
    assert first == ("ABANDONED: hand 1 was abandoned because S2 Bo left (not a fault); nobody is blamed. No hand "
                     "complete and verified; totals S0 Ana +0, S1 +0, S2 Bo +0, S3 +0.")
    assert detail.startswith("  Detail: hand 1 was abandoned at slot 23")


def test_export_of_a_text_file_says_it_is_no_transcript(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    assert main(["export", str(notes)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == (f"sasaki export: {notes} is not a transcript: it is text (a game record is "
                                 "checked with 'sasaki replay').\n")      # not "a record at byte 0 has ..."


def test_a_negative_number_of_seconds_is_a_usage_error_not_a_traceback(capsys):
    import pytest

    for argv in (["tables", "--timeout", "-1"], ["join", "1-a-b", "--browse-timeout", "-1"],
                 ["host", "--timeout", "-3"]):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "must be 0 or more seconds, not -" in err and "Traceback" not in err, argv


def test_fast_where_a_person_sits_is_refused_in_one_sentence(tmp_path, capsys):
    """Issue 18: ``--fast`` (every delay 0) is for a table of bots only; ``host`` without
    ``--bot`` refuses it before anything starts (no data directory is made)."""
    from p2p_sasaki.cli.common import FAST_WITH_A_PERSON

    directory = tmp_path / "data"
    assert main(["host", "--fast", "--no-mdns", "--data-dir", str(directory)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"sasaki: {FAST_WITH_A_PERSON}.\n"
    assert err.startswith("sasaki: --fast is for a table of bots only") and not directory.exists()


def test_fast_signs_every_delay_zero():
    import argparse

    from p2p_sasaki.cli.common import pace_from_args
    from p2p_sasaki.protocol.sasaki_game import sasaki_pace

    args = argparse.Namespace(fast=True, window=4.0, claim_window=3.0, bot_turn=1.0, answer_deadline=None,
                              timeout=30.0, stall=120.0)
    assert pace_from_args(args) == sasaki_pace(0, 0, 0) and pace_from_args(args).delays == ()
    args.fast = False
    assert pace_from_args(args) == sasaki_pace() and dict(sasaki_pace().delays) == {
        "run": 4000, "expose": 4000, "stop": 4000, "lead": 4000, "chata": 3000, "kkojda": 3000, "turn": 1000}


def test_the_proof_workers_default_comes_from_the_environment_where_it_is_set(monkeypatch):
    """SASAKI_PROOF_WORKERS sets --proof-workers' default (a whole number); unset or not a
    number, one worker per core on a machine with several (here: two cores), else none."""
    import os

    from p2p_sasaki.cli.common import PROOF_WORKERS_ENV, default_proof_workers

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setenv(PROOF_WORKERS_ENV, "0")
    assert default_proof_workers() == 0
    monkeypatch.setenv(PROOF_WORKERS_ENV, "3")
    assert default_proof_workers() == 3
    for value in ("", "two", "-1"):
        monkeypatch.setenv(PROOF_WORKERS_ENV, value)
        assert default_proof_workers() == 2
    monkeypatch.delenv(PROOF_WORKERS_ENV)
    assert default_proof_workers() == 2
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert default_proof_workers() == 0
