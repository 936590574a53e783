"""Serving one player's table page on 127.0.0.1, behind a token, with h11 and wsproto on trio.

::

    web = WebTable(presenter)
    url = await nursery.start(web.serve)        # http://127.0.0.1:PORT/t/TOKEN/

Routes (all under ``/t/TOKEN/``, anything else is 404): ``""`` the page,
``ws`` the WebSocket, ``transcript`` the transcript file once the match is over.
Every request must carry the token, ``Host: 127.0.0.1:PORT`` (a DNS-rebinding page
has another host name) and, when it has an ``Origin`` (always for the WebSocket),
``http://127.0.0.1:PORT`` (another site's page cannot drive the table). One request
per connection (``Connection: close``); the WebSocket then carries JSON:

- server to page: ``{"type": "table", "table": TableView}`` after every change
  (``prompt.deadline`` replaced by ``seconds_left``), ``{"type": "refused",
  "reason": ...}`` to the page whose answer was not taken;
- page to server: ``{"type": "answer", "prompt": ID, "key": "c3" | "pass" |
  "decline"}`` or ``{"type": "answer", "prompt": ID, "cards": "9C 9H"}``,
  ``{"type": "next-match", "offer": ID, "accept": true|false}`` (the next-match offer,
  ``table.next_match``, whose ``deadline`` is also sent as ``seconds_left``), and
  ``{"type": "leave"}`` (the match is over and the person closes the table; an open
  next-match offer is declined), ``{"type": "partners", "names": "Mina+Jun" | "draw"}``
  (the creator of a Sasku table chooses partners while it fills: ``table.partners``).

Answers go to :meth:`Presenter.answer`: the first for a prompt wins, in whichever
tab or view it was given.

Caps (docs/reliability.md, "Hostile connections"): at most ``MAX_CONNECTIONS`` (64)
connections in all, of which at most ``MAX_PER_TOKEN`` (16) carry the token (one more
with the token is answered 503); until its request has arrived a connection holds a slot
of :attr:`PageServer.pool` (protocol/net/pool.py), must send its request within
``REQUEST_TIMEOUT`` and is displaced, the oldest first, by newcomers when the 48 others
are taken. The server pings each WebSocket every ``PING_EVERY`` seconds (a browser
answers by itself) and closes one on which nothing arrived for ``IDLE_AFTER``.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
from enum import Enum
from typing import Any

import h11
import trio
import wsproto.utilities
from wsproto.connection import Connection, ConnectionType
from wsproto.events import CloseConnection, Ping, TextMessage
from wsproto.utilities import generate_accept_token

from p2p_sasaki.cli.presenter import Presenter, Refusal, TableView
from p2p_sasaki.cli.web.page import page
from p2p_sasaki.protocol.net.pool import ConnectionPool

__all__ = ["PageServer", "WebTable", "table_json"]

MAX_REQUEST = 16384
MAX_MESSAGE = 4096
SEND_TIMEOUT = 30.0    # seconds a tab may leave a message unread before its WebSocket is closed
MAX_CONNECTIONS = 64   # connections held at once, in all
MAX_PER_TOKEN = 16     # of which carrying the page's token (tabs, page loads, the transcript)
REQUEST_TIMEOUT = 10.0 # seconds from connecting to the whole request
PING_EVERY = 10.0      # seconds between the server's pings on a WebSocket
IDLE_AFTER = 30.0      # a WebSocket on which nothing arrived (not even a pong) this long is closed


def table_json(table: TableView) -> dict[str, Any]:
    """The snapshot as JSON values; the prompt's deadline as seconds left from now."""
    def plain(value: Any) -> Any:
        if isinstance(value, Enum):
            return value.value
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value

    data: dict[str, Any] = plain(dataclasses.asdict(table))
    for name in ("prompt", "next_match"):
        prompt = data.get(name)
        if prompt is not None:
            deadline = prompt.pop("deadline")
            prompt["seconds_left"] = None if deadline is None else max(0.0, deadline - trio.current_time())
    return data


class PageServer:
    """One page on 127.0.0.1 behind a token (the checks of this module's docstring); ``serve``
    runs until cancelled. This class serves ``html`` alone; :class:`WebTable` adds the table's
    WebSocket and transcript."""

    def __init__(self, html: str = "", host: str = "127.0.0.1") -> None:
        self.html = html
        self.host = host
        self.token = secrets.token_urlsafe(24)
        self.port = 0
        self.pool = ConnectionPool(MAX_CONNECTIONS - MAX_PER_TOKEN, first_frame=REQUEST_TIMEOUT)
        """The connections whose request has not arrived yet."""
        self._with_token = 0

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/t/{self.token}/"

    def connections(self) -> int:
        """Connections held now: waiting for their request, or carrying the token."""
        return len(self.pool) + self._with_token

    async def serve(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host=self.host)
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.url)
        await trio.serve_listeners(self._connection, listeners)

    # -- HTTP ----------------------------------------------------------------------------

    async def _connection(self, stream: trio.SocketStream) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_REQUEST)
        try:
            request = None
            with self.pool.slot(self.host):     # until the request has arrived
                request = await self._request(stream, conn)
            if request is None:
                return
            await self._route(stream, conn, request)
        except* (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, h11.ProtocolError,
                 wsproto.utilities.LocalProtocolError, wsproto.utilities.RemoteProtocolError):
            pass    # a tab that went away, stopped reading or spoke nonsense (also from the WebSocket's
            # two tasks); the table goes on, and a reload opens a new WebSocket
        finally:
            with trio.move_on_after(1) as cleanup:
                cleanup.shield = True
                await stream.aclose()

    async def _request(self, stream: trio.SocketStream, conn: h11.Connection) -> h11.Request | None:
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await stream.receive_some(4096)
                conn.receive_data(data)
                if not data:
                    return None
                continue
            if isinstance(event, h11.Request):
                return event
            return None

    def _problem(self, request: h11.Request, websocket: bool) -> tuple[int, str] | None:
        """Why ``request`` is refused (status, text), or None."""
        headers = {name.decode().lower(): value.decode("latin-1") for name, value in request.headers}
        if headers.get("host") != f"{self.host}:{self.port}":
            return 421, "wrong Host: open the address the program printed"
        origin = headers.get("origin")
        if (origin is not None or websocket) and origin != f"http://{self.host}:{self.port}":
            return 403, "wrong Origin"
        return None

    async def _route(self, stream: trio.SocketStream, conn: h11.Connection, request: h11.Request) -> None:
        target = request.target.decode("latin-1").split("?", 1)[0]
        prefix = f"/t/{self.token}/"
        if not secrets.compare_digest(target[:len(prefix)].encode(), prefix.encode()):
            await self._respond(stream, conn, 404, "text/plain", b"not found\n")
            return
        if self._with_token >= MAX_PER_TOKEN:
            await self._respond(stream, conn, 503, "text/plain", b"too many connections to this page: close a tab "
                                                                 b"and reload\n")
            return
        self._with_token += 1
        try:
            await self._serve(stream, conn, request, target[len(prefix):])
        finally:
            self._with_token -= 1

    async def _serve(self, stream: trio.SocketStream, conn: h11.Connection, request: h11.Request,
                     rest: str) -> None:
        """A request that carries the token; ``rest``: its path after ``/t/TOKEN/``."""
        websocket = rest == "ws" and any(name.lower() == b"upgrade" and value.lower() == b"websocket"
                                         for name, value in request.headers)
        problem = self._problem(request, websocket)
        if problem is not None:
            await self._respond(stream, conn, problem[0], "text/plain", problem[1].encode() + b"\n")
            return
        if request.method != b"GET":
            await self._respond(stream, conn, 405, "text/plain", b"GET only\n")
        elif rest == "":
            await self._respond(stream, conn, 200, "text/html; charset=utf-8", self.page().encode())
        else:
            await self._more(stream, conn, request, rest, websocket)

    def page(self) -> str:
        return self.html

    async def _more(self, stream: trio.SocketStream, conn: h11.Connection, request: h11.Request, rest: str,
                    websocket: bool) -> None:
        """Any other route under the token: none here."""
        await self._respond(stream, conn, 404, "text/plain", b"not found\n")

    async def _respond(self, stream: trio.SocketStream, conn: h11.Connection, status: int, content_type: str,
                       body: bytes, extra: list[tuple[bytes, bytes]] | None = None) -> None:
        headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close"), (b"cache-control", b"no-store"),
                   (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                   (b"content-security-policy",
                    b"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                    b"img-src data:; connect-src 'self'; frame-ancestors 'none'")] + (extra or [])
        with trio.fail_after(SEND_TIMEOUT):     # a reader that stops reading does not keep its slot
            await stream.send_all(conn.send(h11.Response(status_code=status, headers=headers)) or b"")
            await stream.send_all(conn.send(h11.Data(data=body)) or b"")
            await stream.send_all(conn.send(h11.EndOfMessage()) or b"")


class WebTable(PageServer):
    """The page of one player's seat; ``serve`` runs until cancelled."""

    def __init__(self, presenter: Presenter, host: str = "127.0.0.1") -> None:
        super().__init__("", host)
        self.presenter = presenter
        self.left = trio.Event()                 # the person closed the table after the match
        self._changed = trio.Event()
        presenter.listeners.append(self._on_change)
        presenter.pages += 1

    def page(self) -> str:
        if self.presenter.part.name == "sasku":   # the game's own page (Sasaki's is unchanged)
            from p2p_sasaki.cli.web.sasku_page import sasku_page

            return sasku_page()
        return page()

    def _on_change(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def _more(self, stream: trio.SocketStream, conn: h11.Connection, request: h11.Request, rest: str,
                    websocket: bool) -> None:
        if websocket:
            await self._websocket(stream, conn, request)
        elif rest == "transcript":
            path = self.presenter.transcript
            if path is None or self.presenter.verdict is None or not path.exists():
                await self._respond(stream, conn, 404, "text/plain", b"no transcript yet\n")
                return
            await self._respond(stream, conn, 200, "application/octet-stream", path.read_bytes(),
                                [(b"content-disposition", f'attachment; filename="{path.name}"'.encode())])
        else:
            await self._respond(stream, conn, 404, "text/plain", b"not found\n")

    # -- WebSocket -----------------------------------------------------------------------

    async def _websocket(self, stream: trio.SocketStream, conn: h11.Connection, request: h11.Request) -> None:
        key = next((value for name, value in request.headers if name.lower() == b"sec-websocket-key"), None)
        if key is None:
            await self._respond(stream, conn, 400, "text/plain", b"no Sec-WebSocket-Key\n")
            return
        accept = generate_accept_token(key)
        await stream.send_all(conn.send(h11.InformationalResponse(
            status_code=101, headers=[(b"upgrade", b"websocket"), (b"connection", b"Upgrade"),
                                      (b"sec-websocket-accept", accept)])) or b"")
        ws = Connection(ConnectionType.SERVER)
        trailing, _ = conn.trailing_data
        if trailing:
            ws.receive_data(trailing)
        closed = trio.Event()
        # The push task and the receive task (its replies) both write to the stream: one at a
        # time (a SocketStream refuses two concurrent send_all calls with BusyResourceError,
        # which would end the whole page server), and never longer than SEND_TIMEOUT for a tab
        # that stopped reading.
        sending = trio.StrictFIFOLock()

        async def write(event: Any) -> None:
            async with sending:
                with trio.fail_after(SEND_TIMEOUT):
                    await stream.send_all(ws.send(event))

        async def send(text: str) -> None:
            await write(TextMessage(data=text))

        async def push() -> None:
            while not closed.is_set():
                changed = self._changed
                await send(json.dumps({"type": "table", "table": table_json(self.presenter.table())}))
                await changed.wait()

        async def receive() -> None:
            buffer = ""
            while True:
                for event in ws.events():
                    if isinstance(event, TextMessage):
                        buffer += event.data
                        if len(buffer) > MAX_MESSAGE:
                            return
                        if event.message_finished:
                            reply = self._message(buffer)
                            buffer = ""
                            if reply is not None:
                                await send(json.dumps(reply))
                    elif isinstance(event, Ping):
                        await write(event.response())
                    elif isinstance(event, CloseConnection):
                        await write(event.response())
                        return
                with trio.fail_after(IDLE_AFTER):   # a live tab answers the pings at least
                    data = await stream.receive_some(4096)
                if not data:
                    return
                ws.receive_data(data)

        async def ping() -> None:
            while True:
                await trio.sleep(PING_EVERY)
                await write(Ping())

        async with trio.open_nursery() as nursery:
            nursery.start_soon(push)
            nursery.start_soon(ping)
            await receive()
            closed.set()
            nursery.cancel_scope.cancel()

    def _message(self, text: str) -> dict[str, Any] | None:
        try:
            message = json.loads(text)
        except ValueError:
            return {"type": "refused", "reason": "not JSON"}
        if not isinstance(message, dict):
            return {"type": "refused", "reason": "not a message"}
        kind = message.get("type")
        if kind == "leave":
            offer = self.presenter.next_offer
            if offer is not None and offer.answer is None:
                self.presenter.answer_next(offer.id, False)    # closing the table: no next match
            if self.presenter.verdict is not None:
                self.presenter.closed = True
                self.left.set()
            return None
        if kind == "next-match":
            if not isinstance(message.get("offer"), int) or not isinstance(message.get("accept"), bool):
                return {"type": "refused", "reason": "unknown message"}
            taken = self.presenter.answer_next(message["offer"], message["accept"])
            return {"type": "refused", "reason": taken.reason} if isinstance(taken, Refusal) else None
        if kind == "partners":
            if not isinstance(message.get("names"), str):
                return {"type": "refused", "reason": "unknown message"}
            chosen = self.presenter.choose_partners(message["names"])
            return {"type": "refused", "reason": chosen.reason} if isinstance(chosen, Refusal) else None
        if kind != "answer" or not isinstance(message.get("prompt"), int):
            return {"type": "refused", "reason": "unknown message"}
        key, cards = message.get("key"), message.get("cards")
        result = self.presenter.answer(message["prompt"], key=key if isinstance(key, str) else None,
                                       cards=cards if isinstance(cards, str) else None)
        if isinstance(result, Refusal):
            return {"type": "refused", "reason": result.reason}
        return None
