"""cli/web/server.py: the local page cannot be flooded (issue 18, finding 6): at most 16
connections carry the page's token and 64 in all, a connection that sends no request in
time is closed, and so is a WebSocket that answers nothing (not even a ping)."""

from __future__ import annotations

from collections.abc import Callable

import trio
import trio.testing
from wsproto.events import Ping

from p2p_sasaki.cli.presenter import Presenter
from p2p_sasaki.cli.web import server
from p2p_sasaki.cli.web.server import WebTable
from tests.cli.test_web_server import Socket, http


async def until(condition: Callable[[], bool]) -> None:
    with trio.fail_after(10):
        while not condition():
            await trio.sleep(0.005)


async def closed_by_server(stream: trio.SocketStream) -> bool:
    """Read until the server closes (True), or give up after 10 s (False)."""
    with trio.move_on_after(10):
        try:
            while await stream.receive_some(65536):
                pass
        except trio.BrokenResourceError:
            pass
        return True
    return False


async def test_idle_connections_over_the_cap_close_the_oldest_and_the_page_still_serves():
    web = WebTable(Presenter())
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        idle = []
        slots = server.MAX_CONNECTIONS - server.MAX_PER_TOKEN
        for number in range(100):
            idle.append(await trio.open_tcp_stream("127.0.0.1", web.port))
            # one at a time, so that the server's order is the order they were opened
            held = min(number + 1, slots)
            await until(lambda: web.connections() == held)   # noqa: B023 (awaited at once)
        assert web.connections() == 48
        for stream in idle[:52]:                       # the oldest were closed, the newest held
            assert await closed_by_server(stream)
        status, _ = await http(web.port, f"/t/{web.token}/", {"Host": f"127.0.0.1:{web.port}"})
        assert status == 200                            # a newcomer is served: it displaced the oldest
        await until(lambda: web.connections() == 47)   # ... and then left
        assert web.pool.statistics().displaced == 53
        for stream in idle:
            await stream.aclose()
        nursery.cancel_scope.cancel()


async def test_a_connection_that_sends_no_request_in_time_is_closed(monkeypatch):
    monkeypatch.setattr(server, "REQUEST_TIMEOUT", 0.3)
    web = WebTable(Presenter())
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        stream = await trio.open_tcp_stream("127.0.0.1", web.port)
        assert await closed_by_server(stream)
        await until(lambda: web.connections() == 0)
        nursery.cancel_scope.cancel()


async def test_at_most_16_connections_carry_the_token():
    web = WebTable(Presenter())
    path = f"/t/{web.token}/ws"
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        tabs = [await Socket.open(web.port, path) for _ in range(server.MAX_PER_TOKEN)]
        for tab in tabs:
            assert (await tab.receive())["type"] == "table"
        status, body = await http(web.port, f"/t/{web.token}/", {"Host": f"127.0.0.1:{web.port}"})
        assert (status, body) == (503, b"too many connections to this page: close a tab and reload\n")
        await tabs.pop().stream.aclose()
        await until(lambda: web.connections() == server.MAX_PER_TOKEN - 1)
        status, _ = await http(web.port, f"/t/{web.token}/", {"Host": f"127.0.0.1:{web.port}"})
        assert status == 200
        for tab in tabs:
            await tab.stream.aclose()
        nursery.cancel_scope.cancel()


async def test_a_websocket_that_answers_nothing_is_closed_and_one_that_answers_pings_stays(monkeypatch):
    monkeypatch.setattr(server, "PING_EVERY", 0.1)
    monkeypatch.setattr(server, "IDLE_AFTER", 0.5)
    web = WebTable(Presenter())
    path = f"/t/{web.token}/ws"
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        mute, alive = await Socket.open(web.port, path), await Socket.open(web.port, path)
        pings = 0

        async def answer_pings() -> None:      # what a browser does by itself
            nonlocal pings
            while True:
                await alive._read()
                for event in [e for e in alive.pending if isinstance(e, Ping)]:
                    alive.pending.remove(event)
                    await alive.stream.send_all(alive.ws.send(event.response()))
                    pings += 1

        nursery.start_soon(answer_pings)
        assert await closed_by_server(mute.stream)     # nothing came back for IDLE_AFTER
        await until(lambda: pings >= 10)              # well past IDLE_AFTER, and still open
        assert web.connections() == 1
        nursery.cancel_scope.cancel()
