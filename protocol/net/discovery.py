"""Finding tables on the LAN with mDNS / DNS-SD (``_sasaki._tcp.local.``).

A table's creator advertises one service instance named ``<nameplate>-<random>``
with small TXT hints only::

    v=2          protocol version (messages.PROTOCOL_VERSION)
    n=7          the table's nameplate (the first part of its code)
    s=2          seats taken (the creator counts)
    p=40123      the join port (also in the SRV record)
    m=Mina       the creator's name (protocol/messages/names.py ``name_problem``; absent: none)
    f=1          the table is full or its match has started (absent, or 0: seats are open)
    g=sasku      the table's game (protocol/game.py GAMES; absent: sasaki); a duplicate Sasku
                 tournament's host says g=sasku-tournament (protocol/net/tournament.py)

Each seated member advertises a *member record* (``_sasaki-member._tcp.local.``) for
as long as it plays, named ``<table id, first 12 hex digits>-<key, first 12 hex>``,
SRV port = its mesh port, A records = its addresses, and TXT::

    v=2          protocol version
    t=<64 hex>   the table id (the current match's)
    k=<64 hex>   the member's public key
    p=40123      its mesh port (also in the SRV record)

A member restarted on a new address (``sasaki resume``) is so found again: every
member watches the records of its table (:func:`keep_member_records`) and, when one
shows another member at a new address, dials it there (:meth:`Mesh.relocate`).

mDNS is unauthenticated: an advertisement is a hint where to knock. Who is who
is settled by the join (SPAKE2 under the table code) and then by identity keys
(the mesh handshake, for a member record).

zeroconf runs with its sync API in its own thread (``use_asyncio=False``),
called from trio through ``trio.to_thread.run_sync``; the browser's callbacks
come back through ``trio.from_thread.run_sync`` into an unbounded memory
channel, so they never block zeroconf's thread.

``interfaces`` is always given explicitly: a list of IPv4 addresses to bind
mDNS to (tests and ``sasaki demo`` pass ``["127.0.0.1"]``), or :data:`ALL_INTERFACES`
for a person's ``sasaki host`` / ``join`` / ``tables`` on a real LAN.
"""

from __future__ import annotations

import functools
import logging
import math
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import trio

from p2p_sasaki.protocol.messages import name_problem
from p2p_sasaki.protocol.net.identity import PROTOCOL_VERSION

# zeroconf (with asyncio and ifaddr) is imported by the functions that advertise or browse,
# not here: most commands import this module for its names (TableAd, ALL_INTERFACES) and a
# table without mDNS (--no-mdns, a known address) never starts zeroconf.
if TYPE_CHECKING:
    from zeroconf import ServiceInfo, ServiceStateChange, Zeroconf

    from p2p_sasaki.protocol.net.mesh import Mesh

log = logging.getLogger(__name__)

SERVICE_TYPE = "_sasaki._tcp.local."
TOURNAMENT_GAME = "sasku-tournament"
"""The ``g`` hint of a duplicate Sasku tournament's host (protocol/net/tournament.py)."""
MEMBER_SERVICE_TYPE = "_sasaki-member._tcp.local."
ALL_INTERFACES: Literal["all"] = "all"
Interfaces = Sequence[str] | Literal["all"]


@dataclass(frozen=True)
class TableAd:
    """A table seen on the network (a hint: nothing here is authenticated)."""

    name: str
    """Service instance name, e.g. ``"7-3fa2c1"``."""
    nameplate: str
    seats_taken: int
    port: int
    addresses: tuple[str, ...]
    version: int
    creator: str | None = None
    """The creator's name (TXT ``m``), None when absent or not a valid name."""
    full: bool = False
    """The table is full or its match has started (TXT ``f=1``)."""
    game: str = "sasaki"
    """The table's game (TXT ``g``; absent or malformed: sasaki)."""

    def __str__(self) -> str:
        where = ", ".join(f"{a}:{self.port}" for a in self.addresses) or f"port {self.port}"
        return f"table {self.nameplate} ({self.seats_taken}/4 seats) at {where}"


def _txt(nameplate: str, seats_taken: int, port: int, creator: str = "", full: bool = False,
         game: str = "sasaki") -> dict[str, str]:
    txt = {"v": str(PROTOCOL_VERSION), "n": nameplate, "s": str(seats_taken), "p": str(port)}
    if creator:
        txt["m"] = creator
    if game != "sasaki":
        txt["g"] = game
    if full:
        txt["f"] = "1"
    return txt


def _parse(info: ServiceInfo) -> TableAd | None:
    """The hints of a resolved service, or None when they are malformed."""
    props = {k: v for k, v in info.decoded_properties.items() if v is not None}
    try:
        version, seats = int(props["v"]), int(props["s"])
        nameplate = props["n"]
    except (KeyError, ValueError):
        log.info("ignoring %s: malformed TXT hints %r", info.name, props)
        return None
    from zeroconf import IPVersion

    instance = info.name.removesuffix("." + SERVICE_TYPE)
    addresses = tuple(info.parsed_addresses(IPVersion.V4Only))
    creator = props.get("m")
    if creator is not None and name_problem(creator) is not None:
        creator = None   # a hint only: a malformed name is dropped, never shown
    game = props.get("g", "sasaki")
    if not (game.isascii() and game.replace("-", "").isalpha() and game.islower() and len(game) <= 24):
        game = "sasaki"   # a hint only: a malformed game is dropped
    return TableAd(instance, nameplate, seats, info.port or 0, addresses, version, creator, props.get("f") == "1",
                   game)


def _local_ipv4_addresses() -> list[str]:
    import ifaddr

    found = [
        ip.ip
        for adapter in ifaddr.get_adapters()
        for ip in adapter.ips
        if ip.is_IPv4 and isinstance(ip.ip, str) and not ip.ip.startswith("127.")
    ]
    return found or ["127.0.0.1"]


@asynccontextmanager
async def _open_zeroconf(interfaces: Interfaces) -> AsyncIterator[Zeroconf]:
    from zeroconf import InterfaceChoice, IPVersion, Zeroconf

    if isinstance(interfaces, str) and interfaces != ALL_INTERFACES:
        raise ValueError(f"interfaces must be a list of addresses or {ALL_INTERFACES!r}, not {interfaces!r}")
    choice = InterfaceChoice.All if interfaces == ALL_INTERFACES else list(interfaces)
    zc = await trio.to_thread.run_sync(
        functools.partial(Zeroconf, interfaces=choice, ip_version=IPVersion.V4Only, use_asyncio=False)
    )
    try:
        yield zc
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(zc.close)


class Advertisement:
    """A registered table; :meth:`update` changes its seats-taken and full hints."""

    def __init__(self, zc: Zeroconf, info: ServiceInfo, nameplate: str, creator: str = "",
                 game: str = "sasaki") -> None:
        self._zc = zc
        self._info = info
        self.nameplate = nameplate
        self.creator = creator
        self.game = game

    @property
    def name(self) -> str:
        """The instance name as registered (zeroconf may have renamed it)."""
        return self._info.name.removesuffix("." + SERVICE_TYPE)

    @property
    def port(self) -> int:
        return self._info.port or 0

    async def update(self, seats_taken: int, full: bool = False) -> None:
        """Say ``seats_taken``; ``full``: the table takes nobody any more (full or started)."""
        from zeroconf import ServiceInfo

        info = ServiceInfo(
            SERVICE_TYPE,
            self._info.name,
            port=self._info.port,
            properties=_txt(self.nameplate, seats_taken, self.port, self.creator, full, self.game),
            server=self._info.server,
            parsed_addresses=self._info.parsed_addresses(),
        )
        await trio.to_thread.run_sync(self._zc.update_service, info)
        self._info = info


@asynccontextmanager
async def advertise_table(
    nameplate: str,
    port: int,
    *,
    interfaces: Interfaces,
    seats_taken: int = 1,
    addresses: Sequence[str] | None = None,
    creator: str = "",
    game: str = "sasaki",
) -> AsyncIterator[Advertisement]:
    """Advertise a table whose join port is ``port`` for the duration of the block
    (``creator``: the creator's name for the ``m`` hint; "" leaves it out; ``game``: the
    ``g`` hint, left out for sasaki).

    Registration probes the network first (about 1.6 s). ``addresses`` default to
    the bound interfaces' addresses (or every non-loopback IPv4 address with
    :data:`ALL_INTERFACES`). Leaving the block sends goodbye packets.
    """
    if addresses is None:
        addresses = _local_ipv4_addresses() if interfaces == ALL_INTERFACES else list(interfaces)
    from zeroconf import ServiceInfo

    instance = f"{nameplate}-{secrets.token_hex(3)}"
    info = ServiceInfo(
        SERVICE_TYPE,
        f"{instance}.{SERVICE_TYPE}",
        port=port,
        properties=_txt(nameplate, seats_taken, port, creator, game=game),
        server=f"sasaki-{instance}.local.",
        parsed_addresses=list(addresses),
    )
    async with _open_zeroconf(interfaces) as zc:
        await trio.to_thread.run_sync(functools.partial(zc.register_service, info, allow_name_change=True))
        advertisement = Advertisement(zc, info, nameplate, creator, game)
        log.info("advertising %s on port %d", advertisement.name, port)
        try:
            yield advertisement
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(zc.unregister_service, advertisement._info)


async def browse_tables(
    timeout: float,
    *,
    interfaces: Interfaces,
    stop_when: Callable[[TableAd], bool] | None = None,
    linger: float = 0.0,
) -> list[TableAd]:
    """The tables seen within ``timeout`` seconds, in the order they were found.

    With ``stop_when``, return as soon as a table satisfying it has been seen, or ``linger``
    seconds after that (within ``timeout``), so a second table of one number is seen too.
    """
    found: dict[str, TableAd] = {}
    async with _open_zeroconf(interfaces) as zc:
        with trio.move_on_after(timeout) as scope:
            async for name, info in _browse(zc, SERVICE_TYPE):
                if info is None:
                    found.pop(name, None)
                    continue
                ad = _parse(info)
                if ad is None:
                    continue
                found[name] = ad
                if stop_when is not None and stop_when(ad):
                    if linger <= 0:
                        break
                    scope.deadline = min(scope.deadline, trio.current_time() + linger)
    return list(found.values())


async def _browse(zc: Zeroconf, service_type: str) -> AsyncIterator[tuple[str, ServiceInfo | None]]:
    """``(name, info)`` for each service of ``service_type`` seen or updated, resolved;
    ``(name, None)`` when one goes away. Runs until the caller stops iterating."""
    from zeroconf import ServiceBrowser, ServiceStateChange

    token = trio.lowlevel.current_trio_token()
    changes_send, changes = trio.open_memory_channel[tuple[ServiceStateChange, str]](math.inf)

    # Runs on the browser's thread; zeroconf passes these exact keyword names.
    def on_service_state_change(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        try:
            trio.from_thread.run_sync(changes_send.send_nowait, (state_change, name), trio_token=token)
        except (trio.RunFinishedError, trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    browser = await trio.to_thread.run_sync(
        lambda: ServiceBrowser(zc, service_type, handlers=[on_service_state_change])
    )
    try:
        async for change, name in changes:
            if change is ServiceStateChange.Removed:
                yield name, None
                continue
            info = await trio.to_thread.run_sync(zc.get_service_info, service_type, name, 1500)
            if info is not None:
                yield name, info
    finally:
        changes.close()
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(browser.cancel)


# -- member records ------------------------------------------------------------------


@dataclass(frozen=True)
class MemberAd:
    """A seated member's mesh address, as its member record gives it (a hint only)."""

    table_id: bytes
    key: bytes
    port: int
    addresses: tuple[str, ...]
    version: int


def _member_info(table_id: bytes, key: bytes, port: int, addresses: Sequence[str], name: str | None = None
                 ) -> ServiceInfo:
    from zeroconf import ServiceInfo

    instance = f"{table_id.hex()[:12]}-{key.hex()[:12]}"
    return ServiceInfo(
        MEMBER_SERVICE_TYPE,
        name or f"{instance}.{MEMBER_SERVICE_TYPE}",
        port=port,
        properties={"v": str(PROTOCOL_VERSION), "t": table_id.hex(), "k": key.hex(), "p": str(port)},
        server=f"sasaki-member-{instance}.local.",
        parsed_addresses=list(addresses),
    )


def _parse_member(info: ServiceInfo) -> MemberAd | None:
    from zeroconf import IPVersion

    props = {k: v for k, v in info.decoded_properties.items() if v is not None}
    try:
        ad = MemberAd(bytes.fromhex(props["t"]), bytes.fromhex(props["k"]), int(props["p"]),
                      tuple(info.parsed_addresses(IPVersion.V4Only)), int(props["v"]))
    except (KeyError, ValueError):
        log.info("ignoring %s: malformed member record %r", info.name, props)
        return None
    return ad if len(ad.table_id) == 32 and len(ad.key) == 32 and 0 < ad.port < 65536 else None


async def keep_member_records(
    mesh: Mesh,
    port: int,
    *,
    interfaces: Interfaces,
    addresses: Sequence[str] | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Until cancelled: advertise ``mesh``'s member record (its mesh ``port``, for the
    table id of ``mesh.roster``, updated when that changes: a next match), and watch the
    other members' records of that table, telling the mesh where each one listens now
    (:meth:`Mesh.relocate`). Records of other tables, of unknown keys, of another version
    or of this member itself are ignored. Started when the record is registered (about
    1.6 s of probing); leaving sends goodbye packets."""
    if addresses is None:
        addresses = _local_ipv4_addresses() if interfaces == ALL_INTERFACES else list(interfaces)
    table_id = mesh.roster.table_id
    info = _member_info(table_id, mesh.key, port, addresses)
    async with _open_zeroconf(interfaces) as zc:
        await trio.to_thread.run_sync(functools.partial(zc.register_service, info, allow_name_change=True))
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_follow_members, zc, mesh)
                task_status.started()
                while True:
                    await trio.sleep(0.5)
                    if mesh.roster.table_id != table_id:   # a next match: the same name, new TXT
                        table_id = mesh.roster.table_id
                        info = _member_info(table_id, mesh.key, port, addresses, info.name)
                        await trio.to_thread.run_sync(zc.update_service, info)
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(zc.unregister_service, info)


async def _follow_members(zc: Zeroconf, mesh: Mesh) -> None:
    async for _, info in _browse(zc, MEMBER_SERVICE_TYPE):
        ad = _parse_member(info) if info is not None else None
        if (ad is None or ad.version != PROTOCOL_VERSION or ad.table_id != mesh.roster.table_id
                or ad.key == mesh.key or ad.key not in mesh.peers or not ad.addresses):
            continue
        host, _ = mesh.address(ad.key)
        mesh.relocate(ad.key, host if host in ad.addresses else ad.addresses[0], ad.port)
