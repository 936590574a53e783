"""The offline marker (docs/reliability.md): the peer that lost its links is told "You are
offline", the others mark it offline, both within one heartbeat of the link going down, in
virtual time (MockClock) on the in-memory transport; and the match still ends as on a
perfect network."""

from __future__ import annotations

import trio

from p2p_sasaki.cli.presenter import OFFLINE_TEXT, Presenter
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.table import Waiting
from tests.cli.test_presenter import KEYS as PRESENTER_KEYS
from tests.cli.test_presenter import texts
from tests.cli.test_table_reliability import KEYS, Match, assert_agreed, cut_off_on_first_shuffle, play_match

HEARTBEAT = 5.0    # the mesh's default keep-alive interval


def marked(waits: list[Waiting], key: bytes) -> bool:
    return any(w.keys[w.seats.index(s)] == key for w in waits for s in w.offline)


async def test_you_are_offline_and_the_others_mark_you_within_a_heartbeat(autojump_clock):
    network = MemoryNetwork(KEYS)
    lost, _ = cut_off_on_first_shuffle(network, 2, 0)    # peer 2 is awaited by everyone
    delays: dict[str, float] = {}

    async def chaos(match: Match) -> None:
        while len(lost) < 3:
            await trio.sleep(0.01)
        start = trio.current_time()
        assert not any(w.alone for w in match.waiting[2]) and not any(marked(match.waiting[n], KEYS[2])
                                                                      for n in (0, 1, 3))
        network.go_offline(KEYS[2])
        while "alone" not in delays or "others" not in delays:
            await trio.sleep(0.01)
            if "alone" not in delays and any(w.alone for w in match.waiting[2]):
                delays["alone"] = trio.current_time() - start
            if "others" not in delays and all(marked(match.waiting[n], KEYS[2]) for n in (0, 1, 3)):
                delays["others"] = trio.current_time() - start
        await trio.sleep(30)
        network.go_online(KEYS[2])

    match = await play_match(network, chaos)
    await assert_agreed(match)
    assert delays["alone"] <= HEARTBEAT and delays["others"] <= HEARTBEAT
    # peer 2 was told once that it is offline, and once that it is back
    alone = [w.alone for w in match.waiting[2]]
    assert alone.count(True) >= 1 and alone[-1] is False
    assert not any(w.alone for n in (0, 1, 3) for w in match.waiting[n])


def test_the_presenter_says_you_are_offline_then_back():
    presenter = Presenter()
    lines = texts(presenter, Waiting((2,), (PRESENTER_KEYS[2],)),
                  Waiting((2,), (PRESENTER_KEYS[2],), offline=(2,), alone=True),
                  Waiting((), (), alone=True),
                  Waiting((2,), (PRESENTER_KEYS[2],)))
    assert lines == ["Waiting for 1 other player to connect ...", OFFLINE_TEXT, "You are back online.",
                     "Waiting for 1 other player to connect ..."]
    assert "no connection" in OFFLINE_TEXT      # the terminal prints it at once (tui.Narrator)
