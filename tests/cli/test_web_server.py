"""cli/web/server.py in process: the token, Host and Origin checks, the pushed table, answers."""

from __future__ import annotations

import json
import re
from typing import Any

import trio
import trio.testing
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request, TextMessage

from p2p_sasaki.cli.presenter import Note, NoteKind, Presenter, Refusal
from p2p_sasaki.cli.web import server
from p2p_sasaki.cli.web.page import page
from p2p_sasaki.cli.web.server import WebTable
from p2p_sasaki.protocol.net.table import Turn
from p2p_sasaki.protocol.session import Seated
from p2p_sasaki.sasaki.hand import Decision, DecisionKind, Decline, Hand, Stop
from tests.engine.sasaki.helpers import deal

KEYS = tuple(bytes([i]) * 32 for i in range(4))


async def http(port: int, target: str, headers: dict[str, str]) -> tuple[int, bytes]:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    lines = [f"GET {target} HTTP/1.1"] + [f"{k}: {v}" for k, v in headers.items()] + ["", ""]
    await stream.send_all("\r\n".join(lines).encode())
    data = b""
    while chunk := await stream.receive_some(65536):
        data += chunk
    await stream.aclose()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_the_page_loads_nothing_from_elsewhere():
    html = page()
    assert "<title>Sasaki table</title>" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "url(" not in html
    # Every card face is in the page, drawn as SVG with its rank and suit.
    faces = json.loads(re.search(r'<script type="application/json" id="faces">(.*?)</script>', html).group(1))
    assert len(faces) == 48 and all(face.startswith("<svg") for face in faces.values())
    assert "10" in faces["TH"] and "\u2665" in faces["TH"] and "\u2660" in faces["4S"]


async def test_token_host_and_origin_are_checked():
    web = WebTable(Presenter())
    async with trio.open_nursery() as nursery:
        url = await nursery.start(web.serve)
        port = web.port
        assert url == f"http://127.0.0.1:{port}/t/{web.token}/" and len(web.token) >= 32
        host = {"Host": f"127.0.0.1:{port}"}
        path = f"/t/{web.token}/"
        assert (await http(port, path, host))[0] == 200
        assert (await http(port, "/t/wrong/", host))[0] == 404
        other = "y" if path[-2] == "x" else "x"   # the token with its last character changed
        assert (await http(port, path[:-2] + other + "/", host))[0] == 404
        assert (await http(port, path, {"Host": f"localhost:{port}"}))[0] == 421
        assert (await http(port, path, {"Host": f"evil.example:{port}"}))[0] == 421
        assert (await http(port, path, host | {"Origin": "http://evil.example"}))[0] == 403
        assert (await http(port, path, host | {"Origin": f"http://127.0.0.1:{port}"}))[0] == 200
        assert (await http(port, path + "transcript", host))[0] == 404
        upgrade = host | {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                          "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
        assert (await http(port, path + "ws", upgrade))[0] == 403                       # no Origin
        assert (await http(port, path + "ws", upgrade | {"Origin": "http://evil.example"}))[0] == 403
        nursery.cancel_scope.cancel()


class Socket:
    """A WebSocket client (wsproto) for the test."""

    def __init__(self, stream: trio.SocketStream, ws: WSConnection) -> None:
        self.stream, self.ws = stream, ws
        self.pending: list[Any] = []   # wsproto events not yet read

    @classmethod
    async def open(cls, port: int, path: str) -> Socket:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        ws = WSConnection(ConnectionType.CLIENT)
        await stream.send_all(ws.send(Request(host=f"127.0.0.1:{port}", target=path,
                                              extra_headers=[(b"origin", f"http://127.0.0.1:{port}".encode())])))
        socket = cls(stream, ws)
        while not any(isinstance(e, AcceptConnection) for e in socket.pending):
            await socket._read()
        socket.pending = [e for e in socket.pending if not isinstance(e, AcceptConnection)]
        return socket

    async def _read(self) -> None:
        self.ws.receive_data(await self.stream.receive_some(65536))
        self.pending.extend(self.ws.events())

    async def receive(self) -> dict:
        """The next whole text message (a big one arrives in pieces)."""
        text = ""
        while True:
            while not any(isinstance(e, TextMessage) for e in self.pending):
                await self._read()
            index = next(i for i, e in enumerate(self.pending) if isinstance(e, TextMessage))
            event = self.pending.pop(index)
            text += event.data
            if event.message_finished:
                return json.loads(text)

    async def send(self, message: dict) -> None:
        await self.stream.send_all(self.ws.send(TextMessage(data=json.dumps(message))))


async def test_two_tabs_see_the_same_table_and_the_first_answer_wins():
    presenter = Presenter(timeout=100)
    presenter.event(Seated(KEYS, 2), None)
    web = WebTable(presenter)
    view = Hand.deal_from(deal("3H"), "3H").view(2)
    turn = Turn(2, Decision(DecisionKind.STOP, (2,)), view, (Stop(2), Decline(2)))
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        path = f"/t/{web.token}/ws"
        first, second = await Socket.open(web.port, path), await Socket.open(web.port, path)
        for tab in (first, second):
            table = (await tab.receive())["table"]
            assert table["you"] == 2 and table["prompt"] is None and table["phase"] == "joining"
        answers: list[object] = []

        async def ask() -> None:
            answers.append(await presenter.ask(turn))

        nursery.start_soon(ask)
        prompts = []
        for tab in (first, second):
            message = await tab.receive()
            while message["table"]["prompt"] is None:
                message = await tab.receive()
            prompts.append(message["table"]["prompt"])
        prompt = prompts[0]
        assert {k: v for k, v in prompts[1].items() if k != "seconds_left"} == \
            {k: v for k, v in prompt.items() if k != "seconds_left"}
        assert prompt["kind"] == "stop" and prompt["groups"][0]["choices"][0]["key"] == "c1"
        assert 99 < prompt["seconds_left"] <= 100 and prompt["can_decline"]
        await first.send({"type": "answer", "prompt": prompt["id"], "key": "c1"})
        await trio.testing.wait_all_tasks_blocked()
        await second.send({"type": "answer", "prompt": prompt["id"], "key": "decline"})
        message = await second.receive()
        while message["type"] != "refused":
            message = await second.receive()
        assert message == {"type": "refused", "reason": "that decision is over (answered already, or its time is up)"}
        await first.send({"type": "answer", "prompt": "x"})
        message = await first.receive()
        while message["type"] != "refused":
            message = await first.receive()
        assert message == {"type": "refused", "reason": "unknown message"}
        nursery.cancel_scope.cancel()
    assert answers == [Stop(2)]


async def flood(presenter: Presenter, changes: int = 300) -> None:
    """Many big changes: a tab that does not read fills its socket and the push blocks."""
    for number in range(changes):
        presenter.tell(Note(f"{number} " + "x" * 20000, NoteKind.PLAY))
        await trio.sleep(0)
    await trio.testing.wait_all_tasks_blocked()


async def test_a_reply_while_a_push_is_blocked_waits_its_turn():
    # The cause of the browser test that hung: the push task and the receive task (its
    # reply) wrote to one stream at once; trio refused the second with BusyResourceError,
    # which ended the whole page server while the tab waited for its reply.
    presenter = Presenter(timeout=100)
    presenter.event(Seated(KEYS, 2), None)
    web = WebTable(presenter)
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        path = f"/t/{web.token}/ws"
        slow = await Socket.open(web.port, path)
        await slow.receive()
        await flood(presenter)                      # the push to the slow tab is stuck mid-send
        await slow.send({"type": "hello"})          # its reply has to wait for the push
        await trio.testing.wait_all_tasks_blocked()
        other = await Socket.open(web.port, path)   # the page still serves
        assert (await other.receive())["table"]["version"] == presenter.version
        with trio.fail_after(30):
            message = await slow.receive()
            while message["type"] != "refused":
                message = await slow.receive()
        assert message == {"type": "refused", "reason": "unknown message"}
        nursery.cancel_scope.cancel()


async def test_a_tab_that_stops_reading_is_closed_and_the_page_goes_on(autojump_clock):
    """In virtual time (the sockets are real, on loopback, in this one process): the server's
    own SEND_TIMEOUT passes without a real wait."""
    presenter = Presenter(timeout=100)
    presenter.event(Seated(KEYS, 2), None)
    web = WebTable(presenter)
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        path = f"/t/{web.token}/ws"
        slow = await Socket.open(web.port, path)
        await slow.receive()
        await flood(presenter)
        await trio.sleep(server.SEND_TIMEOUT + 1)   # past SEND_TIMEOUT: the server closes the slow tab
        with trio.fail_after(30):
            while chunk := await slow.stream.receive_some(1 << 20):
                slow.ws.receive_data(chunk)
        assert chunk == b""                         # the end of the stream: closed by the server
        other = await Socket.open(web.port, path)
        assert (await other.receive())["table"]["version"] == presenter.version
        nursery.cancel_scope.cancel()


async def test_the_next_match_question_on_the_page_first_answer_counts_and_close_table_declines():
    presenter = Presenter(timeout=100)
    presenter.event(Seated(KEYS, 2), None)
    web = WebTable(presenter)
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        path = f"/t/{web.token}/ws"
        first, second = await Socket.open(web.port, path), await Socket.open(web.port, path)
        await first.receive()
        await second.receive()
        answers: list[bool] = []

        async def ask() -> None:
            answers.append(await presenter.wait_next(presenter.offer_next(100)))

        nursery.start_soon(ask)
        message = await first.receive()
        while message["table"]["next_match"] is None:
            message = await first.receive()
        offer = message["table"]["next_match"]
        assert offer["question"] == "Next match with the same four?" and offer["answer"] is None
        assert 99 < offer["seconds_left"] <= 100
        await first.send({"type": "next-match", "offer": offer["id"], "accept": True})
        await trio.testing.wait_all_tasks_blocked()
        await second.send({"type": "next-match", "offer": offer["id"], "accept": False})
        message = await second.receive()
        while message["type"] != "refused":
            message = await second.receive()
        assert message["reason"] == "that question is over (answered already, or its time is up)"
        assert answers == [True] and presenter.next_offer is not None and presenter.next_offer.answer is True
        # Another offer (a later match): "Close table" declines it.
        presenter.verdict = "Audit of your transcript: OK"
        nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        await first.send({"type": "leave"})
        await trio.testing.wait_all_tasks_blocked()
        assert answers == [True, False] and web.left.is_set() and presenter.closed
        nursery.cancel_scope.cancel()


async def test_an_unanswered_next_match_question_closes_when_its_time_is_up(autojump_clock):
    presenter = Presenter(timeout=100)
    notes: list[str] = []
    presenter.on_note.append(lambda note: notes.append(note.text))
    offer = presenter.offer_next(30)
    with trio.move_on_after(30):
        await presenter.wait_next(offer)
    assert presenter.next_offer is None and notes == []        # the caller says why (close_next)
    assert presenter.answer_next(offer.id, True) == Refusal(
        "that question is over (answered already, or its time is up)")


def test_names_reach_the_page_as_data_and_are_set_as_text():
    """A name is untrusted: the snapshot carries it verbatim (JSON over the WebSocket) and the
    page's script puts every text through ``textContent``/``setAttribute``; the one
    ``innerHTML`` is the card faces' SVG, drawn by the program."""
    presenter = Presenter()
    hostile = '<img src=x onerror="alert(1)">'[:24]
    presenter.event(Seated(KEYS, 0, ("Mina", "Jun", hostile, "Bot 4")), None)
    snapshot = json.loads(json.dumps(server.table_json(presenter.table())))
    assert [s["label"] for s in snapshot["seats"]] == ["You", "S1 Jun", "S2 " + hostile, "S3 Bot 4"]
    script = page()
    assert script.count("innerHTML") == 1 and "t.innerHTML = markup" in script
    assert 'box.append(el("h2", {}, seat.you ? seat.label + " (S" + seat.seat + ")" : seat.label));' in script
    assert "e.textContent = text" in script and "e.setAttribute(k, v)" in script
