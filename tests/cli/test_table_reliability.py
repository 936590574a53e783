"""Transport reliability of protocol/net/table.py ("Transport reliability" in its docstring):
four drivers in one process on 127.0.0.1, the real TableSession (2-round shuffle proofs),
links dropped while the match plays, a frame cut in the middle of being written, a peer
cut off completely for two seconds (``Mesh.go_offline``, a closed laptop lid)."""

from __future__ import annotations

import contextvars
import os
import random

import pytest
import trio

from p2p_sasaki.bots import HeuristicBot
from p2p_sasaki.options import TableOptions
from p2p_sasaki.protocol.messages import MessageError, decode_envelope, verify_envelope
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net import framing
from p2p_sasaki.protocol.net import table as table_module
from p2p_sasaki.protocol.net.table import BotPlayer, Waiting, run_table
from p2p_sasaki.protocol.table_audit import audit_table

from p2p_sasaki.cli.common import TableConfig, decode_config, encode_config

MEMBER_NONCE = bytes(range(200, 232))  # a member's join nonce (fresh in real joins)

pytestmark = pytest.mark.slow

PEER = contextvars.ContextVar("PEER", default=None)   # which peer's task (the mesh's tasks inherit it)
CONFIG = TableConfig(hands=2, options=TableOptions(lead_card="3S"), shuffle_rounds=2)


def frame_type(frame: bytes) -> str | None:
    try:
        return decode_envelope(frame).body.type
    except MessageError:
        return None


class CutWrites:
    """Wraps ``FramedStream.send``: ``should_cut(peer, frame)`` true means write half of the
    frame and break the connection (the frame is lost on that link, as when a link breaks
    while a large frame is being written)."""

    def __init__(self, monkeypatch, should_cut) -> None:
        self.cuts: list[tuple[int, str]] = []
        real = framing.FramedStream.send

        async def send(stream, payload: bytes) -> None:
            peer = PEER.get()
            if peer is not None and payload and should_cut(peer, payload):
                data = framing.encode_frame(payload, stream.limit)
                await stream.stream.send_all(data[: len(data) // 2])
                self.cuts.append((peer, frame_type(payload)))
                raise trio.BrokenResourceError("cut by the test in the middle of a frame")
            await real(stream, payload)

        monkeypatch.setattr(framing.FramedStream, "send", send)


async def play_match(tmp_path, chaos, *, timeout: float = 90, stall_after: float = 1.0):
    """Run a 2-hand match among four drivers; ``chaos(meshes, done)`` runs alongside until
    every peer has finished. Returns (results, waiting events per peer)."""
    identities = [Identity.generate() for _ in range(4)]
    listeners = [await trio.open_tcp_listeners(0, host="127.0.0.1") for _ in identities]
    roster = TableRoster(os.urandom(32), tuple(
        TableMember(i.public_key, "127.0.0.1", ls[0].socket.getsockname()[1], MEMBER_NONCE) for i, ls in zip(identities, listeners)))
    results = [None] * 4
    meshes = [None] * 4
    waiting: list[list[Waiting]] = [[] for _ in range(4)]
    done = trio.Event()

    def on_event(n):
        def event(ev, session):
            if isinstance(ev, Waiting):
                waiting[n].append(ev)
        return event

    async def peer(n):
        PEER.set(n)
        results[n] = await run_table(
            identities[n], roster, CONFIG if n == 0 else None, player=BotPlayer(HeuristicBot(random.Random(n))),
            transcript_path=tmp_path / f"{n}.sasaki", listeners=listeners[n], on_event=on_event(n),
            config_codec=(encode_config, decode_config), linger=2.0, stall_after=stall_after,
            on_mesh=lambda mesh: meshes.__setitem__(n, mesh))

    with trio.fail_after(timeout):
        async with trio.open_nursery() as outer:
            outer.start_soon(chaos, meshes, done)
            async with trio.open_nursery() as nursery:
                for n in range(4):
                    nursery.start_soon(peer, n)
            done.set()
    return results, waiting


def assert_agreed(tmp_path, results) -> None:
    assert all(r.finished and r.blame is None for r in results), [r.blame for r in results]
    transcripts = {(tmp_path / f"{n}.sasaki").read_bytes() for n in range(4)}
    assert len(transcripts) == 1   # byte-identical
    audit = audit_table(transcripts.pop())
    assert audit.ok and audit.complete and len(audit.scores) == 2
    assert all(r.totals == audit.totals for r in results)


async def test_match_survives_links_dropped_every_few_hundred_ms(tmp_path, monkeypatch):
    """Random links dropped (seeded) every 0.2-0.5 s while a 2-hand match plays, and every
    shuffle proof frame of peer 1 and 2 cut in the middle on one link: the match ends,
    the four transcripts are byte-identical and audit OK."""
    rng = random.Random(20240611)
    cut_links: set[tuple[int, int, str]] = set()

    def should_cut(peer, frame):
        if peer not in (1, 2) or frame_type(frame) != "deck/shuffle-proof":
            return False
        mark = (peer, decode_envelope(frame).body.hand, "proof")
        if mark in cut_links:
            return False
        cut_links.add(mark)   # one link per proof frame; relays or the re-send repair it
        return True

    cuts = CutWrites(monkeypatch, should_cut)
    drops = []

    async def chaos(meshes, done):
        while not done.is_set():
            await trio.sleep(rng.uniform(0.2, 0.5))
            live = [m for m in meshes if m is not None]
            if not live:
                continue
            mesh = rng.choice(live)
            key = rng.choice(mesh.peers)
            drops.append(key)
            mesh.drop_connection(key)

    results, _ = await play_match(tmp_path, chaos)
    assert_agreed(tmp_path, results)
    assert len(drops) >= 5
    assert {peer for peer, _ in cuts.cuts} == {1, 2}          # a proof frame was lost mid-write
    assert sum(r.resent for r in results) > 0


def cut_off_on_first_shuffle(monkeypatch, victim: int, seconds: float, meshes_ref: list, nursery_ref: list):
    """The victim's own first deck/shuffle frame is cut mid-write on every link, then the
    victim's mesh goes offline (refusing every connection) for ``seconds``."""
    state = {"armed": True, "offline_at": None}

    def should_cut(peer, frame):
        if peer != victim or frame_type(frame) != "deck/shuffle":
            return False
        if state["armed"] and not verify_envelope(decode_envelope(frame), meshes_ref[0][victim].key):
            return False   # a relay of another seat's shuffle: the others have it already
        if state["armed"]:
            state["armed"] = False
            nursery_ref[0].start_soon(lid, meshes_ref[0][victim])
        return state["offline_at"] is None   # every link's copy of this frame, until the lid closes

    async def lid(mesh):
        await trio.sleep(0.05)   # the other links' writers reach the frame too
        state["offline_at"] = trio.current_time()
        mesh.go_offline()
        await trio.sleep(seconds)
        mesh.go_online()

    return CutWrites(monkeypatch, should_cut), state


def hold_meshes():
    """A ``chaos`` task for play_match that only keeps the meshes and a nursery for the cut."""
    meshes_ref, nursery_ref = [], []

    async def chaos(meshes, done):
        meshes_ref.append(meshes)
        async with trio.open_nursery() as nursery:
            nursery_ref.append(nursery)
            await done.wait()
            nursery.cancel_scope.cancel()

    return meshes_ref, nursery_ref, chaos


async def test_table_resumes_after_a_peer_is_cut_off_for_two_seconds(tmp_path, monkeypatch):
    """Peer 2's shuffle frame is lost on all three links (nobody has it, so no relay can
    help), then its mesh is offline for 2 s (all links dropped, connections refused). The
    table waits (the others see it as offline), resumes when it is back, and finishes."""
    meshes_ref, nursery_ref, chaos = hold_meshes()

    cuts, state = cut_off_on_first_shuffle(monkeypatch, 2, 2.0, meshes_ref, nursery_ref)
    results, waiting = await play_match(tmp_path, chaos)
    assert_agreed(tmp_path, results)
    assert state["offline_at"] is not None and len(cuts.cuts) == 3
    assert results[2].resent > 0
    # The others reported the seat they waited for as offline while the lid was closed.
    offline_keys = {w.keys[w.seats.index(s)] for n in (0, 1, 3) for w in waiting[n] for s in w.offline}
    assert offline_keys == {meshes_ref[0][2].key}


async def test_without_resending_the_lost_frame_stalls_the_table(tmp_path, monkeypatch):
    """The same cut with re-sending disabled: nobody ever gets the lost frame, the table
    stalls (this is what the re-send repairs)."""
    monkeypatch.setattr(table_module._Driver, "_resend", lambda self, keys: None)
    meshes_ref, nursery_ref, chaos = hold_meshes()

    cut_off_on_first_shuffle(monkeypatch, 2, 0.5, meshes_ref, nursery_ref)
    with pytest.raises(trio.TooSlowError):
        await play_match(tmp_path, chaos, timeout=8)
