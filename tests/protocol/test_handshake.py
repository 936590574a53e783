"""protocol/handshake.py: the join and mesh handshakes without sockets.

Both sides are wired to each other in memory: every frame one side's Step sends is fed
to the other side's machine, until neither has anything left to send.
"""

from __future__ import annotations

import msgpack
import pytest

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.chain import table_id_of  # noqa: E402
from p2p_sasaki.protocol.crypto import IdentityKey, SeededEntropy
from p2p_sasaki.protocol.handshake import (
    Authenticated,
    CodeConfirmed,
    CreatorConfirmed,
    Failed,
    JoinCreator,
    JoinJoiner,
    MeshHandshake,
    RefusedByPeer,
    RosterReceived,
    State,
    Step,
    WrongCode,
)
from p2p_sasaki.protocol.messages import (
    PROTOCOL_VERSION,
    MeshHello,
    Refusal,
    TableMember,
    TableRoster,
    decode_handshake,
    encode_handshake,
)

MEMBER_NONCE = bytes(range(200, 232))  # a member's join nonce (fresh in real joins)

TABLE = bytes(range(32))
CODE = b"7-purple-sausage"
KEYS = sorted((IdentityKey(bytes([i]) * 32) for i in range(1, 5)), key=lambda k: k.public_key)
ROSTER = TableRoster(TABLE, tuple(TableMember(k.public_key, "127.0.0.1", 5000 + i, MEMBER_NONCE)
                                  for i, k in enumerate(KEYS)))
LOW, HIGH = KEYS[0], KEYS[1]
# A public key of small order (order 8): weak, refused wherever a key is learnt.
WEAK = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


Machine = MeshHandshake | JoinCreator | JoinJoiner


QUIET = Step()


def pump(a: Machine, b: Machine, first: Step, second: Step = QUIET) -> tuple[list[object], list[object], list[bytes]]:
    """Deliver ``first`` (a's output) to b and ``second`` (b's) to a, and so on, until
    quiet or a side has ended. Returns (a's events, b's events, every frame in order)."""
    events: tuple[list[object], list[object]] = ([*first.events], [*second.events])
    wire: list[bytes] = []
    queues = [list(first.send), list(second.send)]  # frames to b, frames to a
    machines = (a, b)
    while any(queues):
        for source in (0, 1):
            target = 1 - source
            while queues[source]:
                frame = queues[source].pop(0)
                wire.append(frame)
                if machines[target].state not in (State.RUNNING, State.WAITING):
                    queues[source].clear()  # the other side closed the connection
                    break
                step = machines[target].receive(frame)
                events[target].extend(step.events)
                queues[target].extend(step.send)
    return events[0], events[1], wire


def mesh_pair(seed: bytes = b"s", dialer: IdentityKey = LOW, listener: IdentityKey = HIGH,
              roster: TableRoster = ROSTER) -> tuple[MeshHandshake, MeshHandshake]:
    d = MeshHandshake(dialer, roster, dialing=listener.public_key, entropy=SeededEntropy(seed + b"d"))
    ls = MeshHandshake(listener, ROSTER, entropy=SeededEntropy(seed + b"l"), peer="a connection")
    return d, ls


# -- mesh ----------------------------------------------------------------------------


def test_mesh_handshake_authenticates_both_sides_and_is_byte_identical_from_a_seed():
    d, ls = mesh_pair()
    dialer_events, listener_events, wire = pump(d, ls, d.start(), ls.start())
    assert dialer_events == [Authenticated(HIGH.public_key)]
    assert listener_events == [Authenticated(LOW.public_key)]
    assert d.state is ls.state is State.DONE
    assert [decode_handshake(f).TAG for f in wire] == ["mesh-hello", "mesh-hello", "mesh-proof", "mesh-proof",
                                                       "mesh-welcome"]
    d2, ls2 = mesh_pair()
    assert pump(d2, ls2, d2.start(), ls2.start())[2] == wire
    d3, ls3 = mesh_pair(b"other")
    assert pump(d3, ls3, d3.start(), ls3.start())[2] != wire


def test_mesh_accepts_a_higher_key_dialing_and_refuses_an_answer_under_another_key():
    d, ls = mesh_pair(dialer=HIGH, listener=LOW)  # a resumed peer on a new address dials everyone
    dialer_events, listener_events, _ = pump(d, ls, d.start(), ls.start())
    assert dialer_events == [Authenticated(LOW.public_key)]
    assert listener_events == [Authenticated(HIGH.public_key)]
    # The dialer expected KEYS[2] at that address; HIGH answered.
    d = MeshHandshake(LOW, ROSTER, dialing=KEYS[2].public_key, entropy=SeededEntropy(b"x"))
    ls = MeshHandshake(HIGH, ROSTER, entropy=SeededEntropy(b"y"))
    dialer_events, listener_events, _ = pump(d, ls, d.start())
    assert dialer_events == [Failed(f"refused the peer: 127.0.0.1:5002 answered as peer {HIGH.public_key[:4].hex()}",
                                    "refused", True)]
    assert isinstance(listener_events[0], RefusedByPeer)


def test_mesh_refuses_an_impostor_a_stranger_another_table_and_a_weak_key():
    mallory = IdentityKey(b"m" * 32)
    cases = [
        (MeshHello(PROTOCOL_VERSION, TABLE, mallory.public_key, bytes(32)),
         f"peer {mallory.public_key[:4].hex()} is not a member of this table"),
        (MeshHello(PROTOCOL_VERSION, bytes(32), LOW.public_key, bytes(32)), "it belongs to another table"),
    ]
    for hello, problem in cases:
        ls = MeshHandshake(HIGH, ROSTER, entropy=SeededEntropy(b"l"))
        step = ls.receive(encode_handshake(hello))
        assert step.events == (Failed(f"refused the peer: {problem}", "refused", True),)
        assert decode_handshake(step.send[-1]) == Refusal("refused", f"refused by peer {HIGH.public_key[:4].hex()}: "
                                                          + problem)
    weak_roster = TableRoster(TABLE, (TableMember(WEAK, "", 1, MEMBER_NONCE), *ROSTER.members))
    ls = MeshHandshake(HIGH, weak_roster, entropy=SeededEntropy(b"l"))
    step = ls.receive(encode_handshake(MeshHello(PROTOCOL_VERSION, TABLE, WEAK, bytes(32))))
    assert step.events == (Failed(f"refused the peer: peer {WEAK[:4].hex()} is a weak key", "refused", True),)
    # An impostor: LOW's key, Mallory's signature.
    impostor = MeshHandshake(LOW, ROSTER, dialing=HIGH.public_key, entropy=SeededEntropy(b"d"))
    impostor.identity = mallory
    ls = MeshHandshake(HIGH, ROSTER, entropy=SeededEntropy(b"l"))
    _, listener_events, _ = pump(impostor, ls, impostor.start())
    assert listener_events == [Failed(f"refused the peer (claiming to be peer {LOW.public_key[:4].hex()}): its "
                                      f"signature does not match peer {LOW.public_key[:4].hex()}", "refused", True)]


def test_mesh_version_mismatch_is_one_clear_sentence_on_both_sides():
    ls = MeshHandshake(HIGH, ROSTER, entropy=SeededEntropy(b"l"))
    old_hello = msgpack.packb(["mesh-hello", 1, TABLE, LOW.public_key, bytes(32)])
    step = ls.receive(old_hello)
    assert step.events == (Failed("refused the peer: it speaks protocol version 1, we speak version "
                                  f"{PROTOCOL_VERSION}; both need the same p2p-sasaki release", "version", True),)
    assert decode_handshake(step.send[-1]).reason.endswith(
        f"it speaks protocol version 1, we speak version {PROTOCOL_VERSION}; both need the same p2p-sasaki release")
    d = MeshHandshake(LOW, ROSTER, dialing=HIGH.public_key, entropy=SeededEntropy(b"d"), peer="peer x")
    d.start()
    step = d.receive(msgpack.packb(["mesh-hello", PROTOCOL_VERSION + 1, TABLE, HIGH.public_key, bytes(32)]))
    assert isinstance(step.events[0], Failed) and step.events[0].kind == "version"


@pytest.mark.parametrize(
    "frame, reason",
    [
        (b"\xc1", "the peer sent a malformed handshake message (malformed message: the handshake message is not "
                  "valid msgpack)"),
        (msgpack.packb(["mesh-hello", PROTOCOL_VERSION, TABLE, b"k"]), "the peer sent a malformed handshake message "
         "(malformed message: the mesh-hello message must be an array of 4 fields)"),
        (encode_handshake(Refusal("refused", "no")) + b"\x00", "the peer sent a malformed handshake message "
         "(malformed message: the handshake message is not valid msgpack)"),
        (msgpack.packb(["pake", bytes(33)]), "the peer sent pake where mesh-hello was expected"),
    ],
)
def test_mesh_malformed_frames_end_the_handshake_with_a_refusal(frame, reason):
    ls = MeshHandshake(HIGH, ROSTER, entropy=SeededEntropy(b"l"))
    step = ls.receive(frame)
    assert step.events == (Failed(reason, "refused", True),)
    assert isinstance(decode_handshake(step.send[-1]), Refusal)
    with pytest.raises(RuntimeError):
        ls.receive(frame)


# -- join ----------------------------------------------------------------------------

CREATOR = KEYS[0]
JOINER = KEYS[1]


def join_pair(password: bytes = CODE, nameplate: str = "7", seed: bytes = b"j") -> tuple[JoinCreator, JoinJoiner]:
    creator = JoinCreator(CREATOR, TableMember(CREATOR.public_key, "", 5000, MEMBER_NONCE, "Mina"), CODE, "7", TABLE,
                          entropy=SeededEntropy(seed + b"c"))
    joiner = JoinJoiner(JOINER, TableMember(JOINER.public_key, "", 6000, MEMBER_NONCE, "Jun"), password, nameplate,
                        "10.0.0.1",
                        entropy=SeededEntropy(seed + b"j"))
    return creator, joiner


def test_join_right_code_admits_then_the_roster_arrives_byte_identical_from_a_seed():
    creator, joiner = join_pair()
    creator_events, joiner_events, wire = pump(creator, joiner, creator.start(), joiner.start())
    assert creator_events == [CodeConfirmed(TableMember(JOINER.public_key, "", 6000, MEMBER_NONCE, "Jun"))]
    assert joiner_events == []
    _, joiner_events, wire2 = pump(creator, joiner, creator.admit())
    assert joiner_events == [CreatorConfirmed(TableMember(CREATOR.public_key, "10.0.0.1", 5000, MEMBER_NONCE, "Mina"))]
    members = (TableMember(CREATOR.public_key, "", 5000, MEMBER_NONCE, "Mina"),
               TableMember(JOINER.public_key, "1.2.3.4", 6000, MEMBER_NONCE, "Jun"))
    roster = TableRoster(table_id_of(TABLE, members), members)
    _, joiner_events, wire3 = pump(creator, joiner, creator.send_roster(roster))
    assert joiner_events == [RosterReceived(TableRoster(roster.table_id, (
        TableMember(CREATOR.public_key, "10.0.0.1", 5000, MEMBER_NONCE, "Mina"), roster.members[1])))]
    assert creator.state is joiner.state is State.DONE
    tags = [decode_handshake(f).TAG for f in wire + wire2 + wire3]
    assert tags == ["join-greeting", "pake", "pake", "sealed", "sealed", "sealed"]
    c2, j2 = join_pair()
    assert pump(c2, j2, c2.start())[2] == wire
    assert pump(c2, j2, c2.admit())[2] == wire2


def test_join_wrong_code_is_seen_by_the_creator_only_as_a_failed_key_confirmation():
    creator, joiner = join_pair(password=b"7-purple-otter")
    creator_events, joiner_events, _ = pump(creator, joiner, creator.start())
    assert creator_events == [WrongCode()] and joiner_events == []
    _, joiner_events, _ = pump(creator, joiner, creator.refuse("wrong-code", "wrong code"))
    assert joiner_events == [RefusedByPeer("wrong-code", "wrong code")]
    assert creator.state is joiner.state is State.CLOSED


def test_join_burnt_code_and_full_table_are_refusals_of_their_kind():
    for kind, reason in [("code-burnt", "this table's code was burnt after three wrong codes; ask for a new code"),
                         ("table-full", "this table is full")]:
        creator, joiner = join_pair()
        pump(creator, joiner, creator.start())
        _, joiner_events, _ = pump(creator, joiner, creator.refuse(kind, reason))
        assert joiner_events == [RefusedByPeer(kind, reason)]


def test_join_wrong_nameplate_ends_before_any_guess():
    creator, joiner = join_pair(nameplate="8")
    creator_events, joiner_events, _ = pump(creator, joiner, creator.start())
    assert joiner_events == [Failed("the table is table 7, but the code 7-purple-sausage is for table 8", "refused",
                                    True)]
    assert creator_events == [RefusedByPeer("refused", "wrong nameplate")]


def test_join_version_mismatch_is_one_clear_sentence():
    _, joiner = join_pair()
    step = joiner.receive(msgpack.packb(["join-greeting", 1, "7", TABLE]))
    assert step.events == (Failed("the table speaks protocol version 1, we speak version "
                                  f"{PROTOCOL_VERSION}; both need the same p2p-sasaki release", "version", True),)
    refusal = decode_handshake(step.send[0])
    assert refusal == Refusal("version", f"this peer speaks protocol version {PROTOCOL_VERSION}, you speak version 1; "
                                         "both need the same p2p-sasaki release")


def test_join_malformed_frames_and_spake2_messages():
    creator, _ = join_pair()
    creator.start()
    step = creator.receive(msgpack.packb(["pake", b"x" * 33]))
    assert step.events == (Failed("the joiner sent a malformed SPAKE2 message (I don't know what side they're on)",
                                  "refused", True),)
    _, joiner = join_pair()
    step = joiner.receive(msgpack.packb(["sealed", b"x" * 40]))
    assert step.events == (Failed("the table sent sealed where join-greeting was expected", "refused", True),)
    _, joiner = join_pair()
    step = joiner.receive(b"\x92\xa4pake")
    assert isinstance(step.events[0], Failed) and "malformed handshake message" in step.events[0].reason


def test_join_refuses_a_weak_joiner_key():
    class WeakJoiner(IdentityKey):
        def __init__(self) -> None:
            super().__init__(bytes([9]) * 32)
            self.public_key = WEAK

    creator = JoinCreator(CREATOR, TableMember(CREATOR.public_key, "", 5000, MEMBER_NONCE), CODE, "7", TABLE)
    joiner = JoinJoiner(WeakJoiner(), TableMember(WEAK, "", 6000, MEMBER_NONCE), CODE, "7", "10.0.0.1")
    creator_events, _, _ = pump(creator, joiner, creator.start())
    # Its signature cannot verify under a small-order key it does not hold, and the key is weak.
    assert isinstance(creator_events[0], Failed) and creator_events[0].refused


def test_weak_keys_are_rejected_by_the_crypto_check():
    assert crypto.is_acceptable_identity_key(CREATOR.public_key)
    for weak in (WEAK, bytes([1]) + bytes(31), bytes(32), b"\xff" * 32, CREATOR.public_key[:31]):
        assert not crypto.is_acceptable_identity_key(weak)


def test_join_creator_rejects_a_weak_key_even_with_a_valid_transcript(monkeypatch):
    # The key check itself (the signature check would catch a key the joiner cannot sign
    # for, so make the signature pass to see the weak-key refusal).
    monkeypatch.setattr(crypto, "verify_signature", lambda key, data, sig: True)

    class WeakJoiner(IdentityKey):
        def __init__(self) -> None:
            super().__init__(bytes([9]) * 32)
            self.public_key = WEAK

    creator = JoinCreator(CREATOR, TableMember(CREATOR.public_key, "", 5000, MEMBER_NONCE), CODE, "7", TABLE)
    joiner = JoinJoiner(WeakJoiner(), TableMember(WEAK, "", 6000, MEMBER_NONCE), CODE, "7", "10.0.0.1")
    creator_events, joiner_events, _ = pump(creator, joiner, creator.start())
    assert creator_events == [Failed(f"peer {WEAK[:4].hex()} is a weak identity key", "refused", True)]
    assert joiner_events == [RefusedByPeer("refused", f"peer {WEAK[:4].hex()} is a weak identity key")]


# docs/protocol.md, "Handshake test vectors": SHA-256 of every frame of a seeded run,
# concatenated in the order sent.
MESH_VECTOR = (400, "8be628b8c3e05a4c01189ddf8722958c4c6f0805c83f44bc0a5ede50d3a778ca")
JOIN_VECTOR = (730, "199fdbba278a3cd53536c51cdef43b43b010aea6364835fffd6fac6588e2e28c")


def test_vector_seeded_handshakes():
    import hashlib

    d, ls = mesh_pair()
    wire = b"".join(pump(d, ls, d.start(), ls.start())[2])
    assert (len(wire), hashlib.sha256(wire).hexdigest()) == MESH_VECTOR
    creator, joiner = join_pair()
    frames = pump(creator, joiner, creator.start())[2] + pump(creator, joiner, creator.admit())[2]
    members = (TableMember(CREATOR.public_key, "", 5000, MEMBER_NONCE, "Mina"),
               TableMember(JOINER.public_key, "", 6000, MEMBER_NONCE, "Jun"))
    roster = TableRoster(table_id_of(TABLE, members), members)
    frames += pump(creator, joiner, creator.send_roster(roster))[2]
    wire = b"".join(frames)
    assert (len(wire), hashlib.sha256(wire).hexdigest()) == JOIN_VECTOR


# -- the creator's admissions ---------------------------------------------------------


def joiner(i: int, host: str = "") -> CodeConfirmed:
    return CodeConfirmed(TableMember(KEYS[i].public_key, host, 6000 + i, MEMBER_NONCE))


def test_admissions_seat_joiners_until_full_then_refuse_everybody():
    from p2p_sasaki.protocol.handshake import FULL_SENTENCE, Admit, JoinAdmissions, Refuse

    book = JoinAdmissions(TABLE, TableMember(CREATOR.public_key, "", 5000, MEMBER_NONCE), seats=3)
    assert book.decide(joiner(1), "10.0.0.2") == Admit(TableMember(KEYS[1].public_key, "10.0.0.2", 6001, MEMBER_NONCE))
    assert book.decide(joiner(1), "10.0.0.9") == Refuse("refused", f"peer {KEYS[1].public_key[:4].hex()} is already "
                                                                   "at this table")
    creator = book.decide(joiner(0), "10.0.0.9")
    assert isinstance(creator, Refuse) and creator.kind == "refused"  # the creator's own key
    assert book.decide(joiner(2, "h"), "10.0.0.3") == Admit(TableMember(KEYS[2].public_key, "h", 6002, MEMBER_NONCE))
    assert book.closed == "table-full" and book.roster.keys == (CREATOR.public_key, KEYS[1].public_key,
                                                                KEYS[2].public_key)
    assert book.decide(joiner(3), "10.0.0.4") == Refuse("table-full", FULL_SENTENCE)
    assert book.decide(WrongCode(), "10.0.0.4") == Refuse("table-full", FULL_SENTENCE) and book.failures == 0
    assert not book.leave(book.joined[0])  # too late: the roster is out


def test_admissions_burn_the_code_after_three_wrong_codes_and_free_a_left_seat():
    from p2p_sasaki.protocol.handshake import BURNT_SENTENCE, Admit, JoinAdmissions, Refuse

    book = JoinAdmissions(TABLE, TableMember(CREATOR.public_key, "", 5000, MEMBER_NONCE), seats=4)
    admitted = book.decide(joiner(1), "10.0.0.2")
    assert isinstance(admitted, Admit) and book.leave(admitted.member) and book.seats_taken == 1
    assert book.decide(WrongCode(), "x") == Refuse("wrong-code", "wrong code")
    assert book.decide(WrongCode(), "x") == Refuse("wrong-code", "wrong code")
    assert book.decide(WrongCode(), "x") == Refuse("wrong-code", f"wrong code; {BURNT_SENTENCE}")
    assert book.closed == "code-burnt" and book.failures == 3
    assert book.decide(joiner(2), "y") == Refuse("code-burnt", BURNT_SENTENCE)
    assert book.refusal_if_closed() == Refuse("code-burnt", BURNT_SENTENCE)


# -- issue 12: fresh tables ------------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, "invitation id", "my nonce", "creator nonce", "my name", "creator name"])
def test_a_joiner_refuses_a_roster_whose_table_id_is_not_fresh(bad):
    """The table id is H32("table-id", invitation id, n, key_i ‖ nonce_i ...): a joiner checks
    it, and that its own fresh nonce and name (and the creator's) are in it."""
    creator, joiner = join_pair()
    pump(creator, joiner, creator.start(), joiner.start())
    pump(creator, joiner, creator.admit())
    other = bytes(32)
    members = (TableMember(CREATOR.public_key, "", 5000, other if bad == "creator nonce" else MEMBER_NONCE,
                           "Eve" if bad == "creator name" else "Mina"),
               TableMember(JOINER.public_key, "", 6000, other if bad == "my nonce" else MEMBER_NONCE,
                           "Eve" if bad == "my name" else "Jun"))
    table_id = TABLE if bad == "invitation id" else table_id_of(TABLE, members)
    _, joiner_events, _ = pump(creator, joiner, creator.send_roster(TableRoster(table_id, members)))
    if bad is None:
        assert [type(e).__name__ for e in joiner_events] == ["RosterReceived"] and joiner.state is State.DONE
    else:
        assert [type(e).__name__ for e in joiner_events] == ["Failed"] and joiner.state is not State.DONE


def test_admissions_make_the_table_id_from_every_member():
    from p2p_sasaki.protocol.handshake import JoinAdmissions

    book = JoinAdmissions(TABLE, TableMember(CREATOR.public_key, "", 5000, MEMBER_NONCE), seats=2)
    book.decide(CodeConfirmed(TableMember(KEYS[1].public_key, "", 6001, bytes(32))), "10.0.0.2")
    again = JoinAdmissions(TABLE, TableMember(CREATOR.public_key, "", 5000, MEMBER_NONCE), seats=2)
    again.decide(CodeConfirmed(TableMember(KEYS[1].public_key, "", 6001, bytes([1]) * 32)), "10.0.0.2")
    assert book.roster.table_id == table_id_of(TABLE, book.roster.members) != again.roster.table_id


# -- issue 21: a tournament's join takes more members than a table's ---------------------------


def test_a_tournament_join_seats_17_members_and_a_table_join_still_stops_at_16():
    """``max_members`` (a tournament's limit) lifts the table's 16 for the admissions and
    the joiner's check of the roster; without it a 17th member is refused on both sides."""
    from p2p_sasaki.protocol.handshake import FULL_SENTENCE, Admit, JoinAdmissions, Refuse

    me = TableMember(CREATOR.public_key, "", 5000, MEMBER_NONCE, "Mina")
    with pytest.raises(ValueError, match=r"2\.\.16 seats"):
        JoinAdmissions(TABLE, me, seats=17)                       # a table: 16 at most, as before
    with pytest.raises(ValueError, match=r"2\.\.255 members"):
        JoinAdmissions(TABLE, me, seats=17, max_members=256)      # the wire's limit
    book = JoinAdmissions(TABLE, me, seats=17, max_members=64)
    jun = TableMember(JOINER.public_key, "", 6000, MEMBER_NONCE, "Jun")
    assert book.decide(CodeConfirmed(jun), "1.2.3.4") == Admit(TableMember(JOINER.public_key, "1.2.3.4", 6000,
                                                                           MEMBER_NONCE, "Jun"))
    others = [IdentityKey(bytes([100 + i]) * 32) for i in range(16)]
    for i, other in enumerate(others[:15]):
        assert isinstance(book.decide(CodeConfirmed(TableMember(other.public_key, "", 7000 + i, MEMBER_NONCE)),
                                      f"10.0.1.{i}"), Admit)
    assert book.closed == "table-full" and len(book.roster.members) == 17
    late = CodeConfirmed(TableMember(others[15].public_key, "", 7999, MEMBER_NONCE))
    assert book.decide(late, "10.0.2.1") == Refuse("table-full", FULL_SENTENCE)
    roster = decode_handshake(encode_handshake(book.roster))
    assert roster == book.roster

    def joined(max_members: int | None) -> list[object]:
        creator = JoinCreator(CREATOR, me, CODE, "7", TABLE, entropy=SeededEntropy(b"t17c"))
        joiner = (JoinJoiner(JOINER, jun, CODE, "7", "10.0.0.1", entropy=SeededEntropy(b"t17j")) if max_members is None
                  else JoinJoiner(JOINER, jun, CODE, "7", "10.0.0.1", entropy=SeededEntropy(b"t17j"),
                                  max_members=max_members))
        pump(creator, joiner, creator.start(), joiner.start())
        pump(creator, joiner, creator.admit())
        return pump(creator, joiner, creator.send_roster(book.roster))[1]

    [received] = joined(64)                                       # a tournament's joiner
    assert isinstance(received, RosterReceived) and received.roster.keys == book.roster.keys
    assert received.roster.members[0].host == "10.0.0.1"
    [failed] = joined(None)                                       # a table's joiner
    assert isinstance(failed, Failed) and failed.reason.endswith("sent a roster of 17 members; this join takes "
                                                                 "at most 16")
    with pytest.raises(ValueError, match=r"2\.\.255 members"):
        JoinJoiner(JOINER, jun, CODE, "7", "10.0.0.1", max_members=256)


def test_the_join_roster_takes_255_members_with_the_longest_hosts_and_names_sealed():
    """The wire limits (docs/protocol.md, "Handshake messages"): a ``join-roster`` of 1..255
    members; 255 with a 255-byte host and a 24-character name of 4-byte characters each
    still fits one ``sealed`` (at most 128 KiB)."""
    from p2p_sasaki.protocol.messages import MAX_JOIN_MEMBERS, MAX_SEALED_BYTES, MessageError, Sealed

    def roster(count: int) -> TableRoster:
        members = tuple(TableMember(i.to_bytes(32, "big"), "h" * 255, 65535, MEMBER_NONCE, "\U0001d11e" * 24)
                        for i in range(1, count + 1))
        return TableRoster(TABLE, members)

    assert MAX_JOIN_MEMBERS == 255
    largest = encode_handshake(roster(255))
    assert decode_handshake(largest) == roster(255)
    sealed = crypto.seal(bytes(32), 1, largest)
    assert len(sealed) <= MAX_SEALED_BYTES
    assert decode_handshake(encode_handshake(Sealed(sealed))) == Sealed(sealed)
    with pytest.raises(MessageError):
        encode_handshake(roster(256))
    with pytest.raises(MessageError):
        encode_handshake(Sealed(bytes(MAX_SEALED_BYTES + 1)))
