"""Why there is no next match, in one true sentence (issue 20, finding 12: the demo said
"No next match: you declined." when nobody was asked)."""

from __future__ import annotations

from types import SimpleNamespace

from p2p_sasaki.cli import common
from p2p_sasaki.cli.common import no_next_match_text

ME, OTHER, THIRD = b"m" * 32, b"o" * 32, b"t" * 32


def outcome(declined=None, timed_out=False, missing=()):
    return SimpleNamespace(declined=declined, timed_out=timed_out, missing=missing)


def label(key: bytes) -> str:
    return {OTHER: "S1 Bot 2", THIRD: "S3 Bot 4"}[key]


def test_a_person_who_was_asked_declined_or_let_the_time_run_out():
    assert no_next_match_text(outcome(ME), ME, "ask", label) == "No next match: you declined."
    assert no_next_match_text(outcome(ME, timed_out=True), ME, "ask", label) == \
        "No next match: your time to answer was up."


def test_nobody_was_asked_so_nobody_declined(monkeypatch):
    monkeypatch.setattr(common, "demo_peer", True)
    assert no_next_match_text(outcome(ME), ME, "no", label) == "The demo plays one match."
    monkeypatch.setattr(common, "demo_peer", False)
    assert no_next_match_text(outcome(ME), ME, "no", label) == \
        "No next match: this peer plays one match (--next-match no; a bot's default)."


def test_another_member_declined_or_did_not_answer():
    assert no_next_match_text(outcome(OTHER), ME, "ask", label) == "No next match: S1 Bot 2 declined."
    assert no_next_match_text(outcome(missing=(OTHER, THIRD)), ME, "yes", label) == \
        "No next match: S1 Bot 2, S3 Bot 4 did not answer in time."
