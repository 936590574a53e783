"""The only I/O of the protocol: TCP mesh, framing, mDNS discovery, joining.

Everything here is trio. The pieces, in the order a table uses them::

    from p2p_sasaki.protocol.net import (Identity, TableCode, advertise_table, host_table,
                              find_and_join_table, join_table, open_mesh)

    # creator
    code = TableCode.generate()                       # show str(code): "7-purple-sausage"
    join_listeners = await trio.open_tcp_listeners(0)
    mesh_listeners = await trio.open_tcp_listeners(0)
    async with advertise_table(code.nameplate, join_port, interfaces=ALL_INTERFACES) as ad:
        roster = await host_table(identity, code, mesh_port, join_listeners,
                                  on_event=...)       # e.g. ad.update(seats_taken)
    # joiner (mDNS, or join_table(identity, code, (host, port), mesh_port) by hand)
    roster = await find_and_join_table(identity, code, mesh_port, interfaces=ALL_INTERFACES)
    # everyone
    async with open_mesh(identity, roster, mesh_listeners) as mesh:
        await mesh.wait_connected()
        await mesh.broadcast(frame)
        async for peer_key, frame in mesh.received: ...

Modules:

- :mod:`~protocol.net.framing`: ``encode_frame``, ``FrameDecoder`` (sans-IO),
  ``FramedStream`` (trio), ``FrameError``, ``MAX_FRAME_SIZE``.
- :mod:`~protocol.net.identity`: ``Identity`` (Ed25519 key); it re-exports
  ``TableMember``, ``TableRoster`` and ``PROTOCOL_VERSION``, defined once in
  :mod:`p2p_sasaki.protocol.messages`.
- :mod:`~protocol.net.mesh`: ``Mesh`` (``run`` via ``nursery.start``, ``send``,
  ``broadcast``, ``received``, ``wait_connected``, ``statistics``, ``close``),
  ``open_mesh``, ``Backoff``.
- :mod:`~protocol.net.discovery`: ``advertise_table``, ``browse_tables``,
  ``TableAd``, ``SERVICE_TYPE``, ``ALL_INTERFACES``.
- :mod:`~protocol.net.join`: ``TableCode``, ``host_table``, ``join_table``,
  ``find_and_join_table``, events and errors.
- :mod:`~protocol.net.handshake`: ``drive`` feeds a sans-IO handshake machine
  (:mod:`p2p_sasaki.protocol.handshake`) from a framed stream; errors and refusals.

Tests, demos and CI pass ``interfaces=["127.0.0.1"]`` or run inside a network
namespace they create; only a person's ``sasaki play/host/join/tables`` uses
``ALL_INTERFACES``.
"""

from p2p_sasaki.protocol.net.discovery import (
    ALL_INTERFACES,
    SERVICE_TYPE,
    Advertisement,
    TableAd,
    advertise_table,
    browse_tables,
)
from p2p_sasaki.protocol.net.framing import MAX_FRAME_SIZE, FrameDecoder, FramedStream, FrameError, encode_frame
from p2p_sasaki.protocol.net.handshake import HandshakeError, RefusedError
from p2p_sasaki.protocol.net.identity import PROTOCOL_VERSION, Identity, TableMember, TableRoster, describe_key
from p2p_sasaki.protocol.net.join import (
    AmbiguousTableError,
    CodeBurntError,
    HostEvent,
    InvalidCodeError,
    JoinError,
    MemberJoined,
    MemberLeft,
    TableClosedError,
    TableCode,
    TableFullError,
    TableNotFoundError,
    WrongCodeError,
    WrongCodeTried,
    creator_label,
    find_and_join_table,
    host_table,
    join_table,
    pick_table,
)
from p2p_sasaki.protocol.net.mesh import Backoff, Mesh, MeshStatistics, PeerStatistics, open_mesh

__all__ = [
    "ALL_INTERFACES", "MAX_FRAME_SIZE", "PROTOCOL_VERSION", "SERVICE_TYPE",
    "AmbiguousTableError", "TableFullError", "creator_label", "pick_table",
    "Advertisement", "Backoff", "CodeBurntError", "FrameDecoder", "FrameError", "FramedStream",
    "HandshakeError", "HostEvent", "Identity", "InvalidCodeError", "JoinError", "MemberJoined",
    "MemberLeft", "Mesh", "MeshStatistics", "PeerStatistics", "RefusedError", "TableAd",
    "TableClosedError", "TableCode", "TableMember", "TableNotFoundError", "TableRoster",
    "WrongCodeError", "WrongCodeTried", "advertise_table", "browse_tables", "describe_key",
    "encode_frame", "find_and_join_table", "host_table", "join_table", "open_mesh",
]
