"""The terminal UI's words, without a network: leads, the "passed" marker, "waiting for"."""

from __future__ import annotations

from types import SimpleNamespace

from p2p_sasaki.cards import CardSet
from p2p_sasaki.hand import Pass, Play
from p2p_sasaki.protocol.net.table import Waiting
from p2p_sasaki.protocol.session import ActionApplied, Seated

from p2p_sasaki.cli import tui

KEYS = tuple(bytes([i]) * 32 for i in range(4))


def narrated(monkeypatch, events):
    lines: list[str] = []
    monkeypatch.setattr(tui, "say", lines.append)
    narrator = tui.Narrator(show_waiting=True)
    for event in events:
        narrator.event(event, None)
    return lines


def test_a_play_on_an_empty_table_is_a_lead(monkeypatch):
    lines = narrated(monkeypatch, [
        Seated(KEYS, 1),
        ActionApplied(Play(0, CardSet.parse("3S")), lead=True),
        ActionApplied(Play(1, CardSet.parse("5C")), lead=False),
        ActionApplied(Pass(2)),
        ActionApplied(Play(1, CardSet.parse("9C 9H")), lead=True),
    ])
    assert lines[1:] == ["  S0 leads 3S (single 3)", "  S1 (you) plays 5C (single 5)", "  S2 passes",
                         "  S1 (you) leads 9C 9H (pair of 9)"]


def test_waiting_is_told_once_per_change(monkeypatch):
    lines = narrated(monkeypatch, [
        Waiting((0, 1, 2, 3), KEYS),                    # before the seats: roster members
        Seated(KEYS, 1),
        Waiting((2,), (KEYS[2],)),
        Waiting((2,), (KEYS[2],)),                      # the same again (after "nobody"): not news
        Waiting((2,), (KEYS[2],), offline=(2,)),
        Waiting((2,), (KEYS[2],)),                      # back online
        Waiting((0, 2, 3), KEYS[0:1] + KEYS[2:]),
        Waiting((0, 3), (KEYS[0], KEYS[3])),            # S2 answered: not news
        Waiting((3,), (KEYS[3],)),
    ])
    assert lines[0] == "waiting for peer 00000000, peer 01010101, peer 02020202, peer 03030303 ..."
    waits = [line for line in lines[1:] if line.startswith("waiting")]
    assert waits == [
        "waiting for S2 (peer 02020202) ...",
        "waiting for S2 (peer 02020202) ... (S2 (peer 02020202): no connection, reconnecting)",
        "waiting for S2 (peer 02020202) ...",
        "waiting for S0 (peer 00000000), S2 (peer 02020202), S3 (peer 03030303) ...",
    ]


def test_passed_marker_is_the_passes_since_the_top_play():
    history = (Play(0, CardSet.parse("3S")), Pass(1), Play(2, CardSet.parse("5C")), Pass(3), Pass(0))
    assert tui.passed_since_last_play(SimpleNamespace(top=object(), history=history)) == [0, 3]
    assert tui.passed_since_last_play(SimpleNamespace(top=None, history=history)) == []
