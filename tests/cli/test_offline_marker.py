"""The offline marker (docs/reliability.md): the peer that lost its links is told "You are
offline", the others mark it offline, both within one heartbeat of the link going down, in
virtual time (MockClock) on the in-memory transport; and the match still ends as on a
perfect network."""

from __future__ import annotations

import trio

from p2p_sasaki.cli.presenter import OFFLINE_TEXT, Presenter
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.table import Links, Waiting
from p2p_sasaki.protocol.net.transport import keepalive_interval
from p2p_sasaki.protocol.session import HandStarted, Seated
from tests.cli.test_presenter import KEYS as PRESENTER_KEYS
from tests.cli.test_presenter import texts
from tests.net.test_table_reliability import KEYS, Match, assert_agreed, cut_off_on_first_shuffle, play_match

HEARTBEAT = 5.0    # the mesh's default (cli: --heartbeat)
KEEPALIVE = keepalive_interval(HEARTBEAT)


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


async def test_a_silent_cut_is_marked_within_one_heartbeat_and_cleared_when_heard_again(autojump_clock):
    """Peer 2's links are unplugged (nobody is told: a pulled cable) while everyone waits for
    it. Nothing arrives any more, keep-alives included, so one heartbeat after the last frame
    each end marks the link down: the others show peer 2 offline and peer 2 is told "you are
    offline", between one heartbeat less the keep-alive interval and one heartbeat after the
    cut. Plugged back, the first keep-alive clears the marker, and the match ends as on a
    perfect network."""
    network = MemoryNetwork(KEYS, heartbeat=HEARTBEAT)
    lost, _ = cut_off_on_first_shuffle(network, 2, 0)    # peer 2 is awaited by everyone
    others = (0, 1, 3)
    delays: dict[str, float] = {}

    def heard_again() -> bool:
        return all(network.transport(KEYS[n]).is_connected(KEYS[2])
                   and network.transport(KEYS[2]).is_connected(KEYS[n]) for n in others)

    async def chaos(match: Match) -> None:
        while len(lost) < 3:
            await trio.sleep(0.01)
        start = trio.current_time()
        for n in others:
            network.unplug(KEYS[2], KEYS[n])
        while "alone" not in delays or "others" not in delays:
            await trio.sleep(0.01)
            if "alone" not in delays and any(w.alone for w in match.waiting[2]):
                delays["alone"] = trio.current_time() - start
            if "others" not in delays and all(marked(match.waiting[n], KEYS[2]) for n in others):
                delays["others"] = trio.current_time() - start
        await trio.sleep(30)
        start = trio.current_time()
        for n in others:
            network.replug(KEYS[2], KEYS[n])
        while not heard_again():
            await trio.sleep(0.01)
        delays["back"] = trio.current_time() - start

    match = await play_match(network, chaos)
    await assert_agreed(match)
    assert HEARTBEAT - KEEPALIVE <= delays["alone"] <= HEARTBEAT + 0.01
    assert HEARTBEAT - KEEPALIVE <= delays["others"] <= HEARTBEAT + 0.01
    assert delays["back"] <= KEEPALIVE + 0.01      # the next keep-alive
    alone = [w.alone for w in match.waiting[2]]
    assert alone.count(True) >= 1 and alone[-1] is False
    assert not any(w.alone for n in others for w in match.waiting[n])


async def test_any_seat_without_a_link_is_reported_within_a_heartbeat_awaited_or_not(autojump_clock):
    """Issue 20, finding 13: the offline marker showed only for a seat the table waited for
    (20.9 s after a cut). The driver's Links event names every member without a live link, as
    soon as the transport knows, and again when it is back."""
    network = MemoryNetwork(KEYS, heartbeat=HEARTBEAT)
    lost, _ = cut_off_on_first_shuffle(network, 2, 0)    # the table waits for peer 2 ...
    others = (0, 1, 2)
    cut: dict[str, float] = {}

    def down(n: int, key: bytes) -> float | None:
        return next((at for at, links in match.links[n] if key in links.keys), None)

    async def chaos(match: Match) -> None:
        while len(lost) < 3:
            await trio.sleep(0.01)
        assert match.ended == 0
        cut["at"] = trio.current_time()                      # ... when peer 3's links go
        for n in others:
            network.unplug(KEYS[3], KEYS[n])
        await trio.sleep(HEARTBEAT * 3)
        cut["back"] = trio.current_time()
        for n in others:
            network.replug(KEYS[3], KEYS[n])

    match = Match()
    await play_match(network, chaos, match=match)
    await assert_agreed(match)
    for n in others:
        at = down(n, KEYS[3])
        assert at is not None and at - cut["at"] <= HEARTBEAT + 0.01, (n, match.links[n])
        cleared = [t for t, links in match.links[n] if t > at and KEYS[3] not in links.keys]
        assert cleared and cleared[0] - cut["back"] <= KEEPALIVE + 0.01, (n, match.links[n])
    presenter = Presenter()
    texts(presenter, Seated(PRESENTER_KEYS, 0), HandStarted(1), Links((2,), (PRESENTER_KEYS[2],)))
    assert [seat.offline for seat in presenter.table().seats] == [False, False, True, False]   # not awaited


def test_the_presenter_says_you_are_offline_then_back():
    presenter = Presenter()
    lines = texts(presenter, Waiting((2,), (PRESENTER_KEYS[2],)),
                  Waiting((2,), (PRESENTER_KEYS[2],), offline=(2,), alone=True),
                  Waiting((), (), alone=True),
                  Waiting((2,), (PRESENTER_KEYS[2],)))
    assert lines == ["Waiting for 1 other player to connect ...", OFFLINE_TEXT, "You are back online.",
                     "Waiting for 1 other player to connect ..."]
    assert "no connection" in OFFLINE_TEXT      # the terminal prints it at once (tui.Narrator)


async def test_back_online_is_reported_even_when_nobody_is_awaited():
    """Issue 20, finding 13: "You are back online." never came when the table waited for nobody
    at that moment (the driver reported a Waiting only while it waited for someone)."""
    from types import SimpleNamespace

    from p2p_sasaki.protocol.net.table import TableResult, _Driver

    up = {key: True for key in KEYS[1:]}
    transport = SimpleNamespace(peers=KEYS[1:], is_connected=lambda key: up.get(key, False))
    session = SimpleNamespace(waiting_for=(), my_seat=0, hand_no=1, slot=7, seat_keys=KEYS, roster_keys=KEYS)
    told: list[object] = []
    driver = _Driver(session, transport, None, None, lambda event, _: told.append(event),  # type: ignore[arg-type]
                     TableResult(False, ()))
    for key in KEYS[1:]:
        up[key] = False
    driver._report_waiting()
    for key in KEYS[1:]:
        up[key] = True
    driver._report_waiting()
    waits = [event for event in told if isinstance(event, Waiting)]
    assert [w.alone for w in waits] == [True, False]
    presenter = Presenter()
    assert texts(presenter, *waits) == [OFFLINE_TEXT, "You are back online."]
