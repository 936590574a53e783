"""protocol/followon.py: the signed next-match answers and the follow-on table's id (sans-IO)."""

from __future__ import annotations

import msgpack
import pytest

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.chain import table_id_of
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.followon import (
    Agreed,
    Declined,
    FollowOn,
    FollowOnAnswer,
    answer_digest,
    decode_follow_on,
    encode_follow_on,
    is_follow_on,
    link_of,
)
from p2p_sasaki.protocol.messages import MessageError, VersionMismatchError
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster

IDENTITIES = [Identity.generate(SeededEntropy(b"follow-on peer %d" % n)) for n in range(4)]
KEYS = tuple(identity.public_key for identity in IDENTITIES)
OLD = TableRoster(bytes(range(32)), tuple(TableMember(key, "127.0.0.1", 5000 + n, bytes([n]) * 32)
                                          for n, key in enumerate(KEYS)))
FINAL = bytes(range(100, 132))
NONCES = [bytes([0xA0 + n]) * 32 for n in range(4)]


def agreements() -> list[FollowOn]:
    return [FollowOn(OLD, FINAL, key) for key in KEYS]


def test_all_four_accept_a_new_table_whose_id_follows_the_table_id_rule():
    peers = agreements()
    frames = [peers[n].answer(IDENTITIES[n], True, NONCES[n]) for n in range(4)]
    for n, peer in enumerate(peers):
        for m, frame in enumerate(frames):
            relay = peer.receive(frame)
            assert relay == (None if m == n else frame)        # the first copy is relayed, once
            assert peer.receive(frame) is None
    outcomes = [peer.outcome for peer in peers]
    assert all(isinstance(o, Agreed) for o in outcomes) and len(set(outcomes)) == 1
    roster = outcomes[0].roster
    # Same members, addresses and order; each member's new nonce; the id from the link.
    assert roster.members == tuple(TableMember(m.key, m.host, m.port, NONCES[n]) for n, m in enumerate(OLD.members))
    link = crypto.hash32(crypto.domain_tag("follow-on"), OLD.table_id, FINAL, b"rematch",
                         (4).to_bytes(4, "big"), *KEYS)
    assert link == link_of(OLD.table_id, FINAL, "rematch", KEYS)
    assert roster.table_id == table_id_of(link, roster.members) != OLD.table_id
    # Another final hash (another end of the old chain) gives another table.
    other = FollowOn(OLD, bytes(32), KEYS[0])
    assert other.link != link


def test_the_answer_bytes_and_signature():
    frame = FollowOn(OLD, FINAL, KEYS[1]).answer(IDENTITIES[1], True, NONCES[1])
    values = msgpack.unpackb(frame)
    assert values[:9] == ["follow-on", 3, OLD.table_id, FINAL, "rematch", list(KEYS), KEYS[1], True, NONCES[1]]
    link = link_of(OLD.table_id, FINAL, "rematch", KEYS)
    assert values[9] == IDENTITIES[1].sign(answer_digest(link, KEYS[1], True, NONCES[1]))
    assert answer_digest(link, KEYS[1], True, NONCES[1]) == crypto.hash32(
        crypto.domain_tag("follow-on/answer"), link, KEYS[1], b"\x01", NONCES[1])
    assert is_follow_on(frame) and decode_follow_on(frame).verify()
    assert encode_follow_on(decode_follow_on(frame)) == frame


def test_one_decline_ends_it_for_everyone_and_names_the_same_member():
    peers = agreements()
    frames = [peers[0].answer(IDENTITIES[0], True, NONCES[0]), peers[2].answer(IDENTITIES[2], False, NONCES[2])]
    for peer in peers:
        for frame in frames:
            peer.receive(frame)
    assert all(peer.outcome == Declined(KEYS[2], "declined") for peer in peers)


def test_a_member_that_answers_both_ways_ends_it():
    peer = agreements()[0]
    yes = FollowOn(OLD, FINAL, KEYS[3]).answer(IDENTITIES[3], True, NONCES[3])
    no = FollowOn(OLD, FINAL, KEYS[3]).answer(IDENTITIES[3], False, NONCES[3])
    assert peer.receive(yes) == yes and peer.outcome is None and peer.missing == KEYS[:3]
    assert peer.receive(no) == no                      # relayed: everyone sees both
    assert peer.outcome == Declined(KEYS[3], "answered both yes and no")


def test_what_is_not_an_authentic_answer_about_this_table_is_dropped():
    peer = agreements()[0]
    elsewhere = FollowOn(OLD, bytes(32), KEYS[1]).answer(IDENTITIES[1], True, NONCES[1])   # another final hash
    assert peer.receive(elsewhere) is None
    forged = msgpack.unpackb(FollowOn(OLD, FINAL, KEYS[1]).answer(IDENTITIES[1], True, NONCES[1]))
    forged[7] = False                                   # the signature was over "accept"
    assert peer.receive(msgpack.packb(forged)) is None
    outsider = Identity.generate(SeededEntropy(b"not a member"))
    with pytest.raises(MessageError, match="signed by one of its members"):
        FollowOn(OLD, FINAL, outsider.public_key).answer(outsider, True, NONCES[0])
    assert peer.receive(b"\x92\xc4\x00\xc4\x00") is None     # an envelope-shaped frame
    assert peer.receive(b"") is None and peer.answers == {}
    newer = msgpack.unpackb(FollowOn(OLD, FINAL, KEYS[1]).answer(IDENTITIES[1], True, NONCES[1]))
    newer[1] = 4
    with pytest.raises(VersionMismatchError, match="version 4"):
        decode_follow_on(msgpack.packb(newer))
    assert peer.receive(msgpack.packb(newer)) is None
    assert not is_follow_on(b"\x92\xc4\x00\xc4\x00")
    assert isinstance(decode_follow_on(FollowOn(OLD, FINAL, KEYS[2]).answer(IDENTITIES[2], True, NONCES[2])),
                      FollowOnAnswer)


def test_vector():
    # docs/protocol.md, "Follow-on table": identity seeds bytes([i]) * 32 for i = 1..4 in
    # that (join) order at 127.0.0.1:5000+n with the old nonce bytes(range(200, 232)), old
    # table id bytes(range(32)), final chain hash bytes(range(100, 132)); member n accepts
    # with the nonce bytes([0xA0 + n]) * 32.
    import hashlib

    ids = [Identity(bytes([i]) * 32) for i in range(1, 5)]
    members = tuple(TableMember(x.public_key, "127.0.0.1", 5000 + n, bytes(range(200, 232)))
                    for n, x in enumerate(ids))
    old = TableRoster(bytes(range(32)), members)
    frames = [FollowOn(old, FINAL, x.public_key).answer(x, True, bytes([0xA0 + n]) * 32) for n, x in enumerate(ids)]
    agreement = FollowOn(old, FINAL, ids[0].public_key)
    for frame in frames:
        agreement.receive(frame)
    assert len(b"".join(frames)) == 1440
    assert hashlib.sha256(b"".join(frames)).hexdigest() == \
        "6e8d6cbcaa5c4c07f67b1fe1d84a9cc5ac38fde2e7b4f91557a24ee0b62fbf92"
    assert agreement.link.hex() == "4bdc3ffdc41796ccc5b6f0ad9b003a18c7b74ac8558067f5d99961d7c154c27d"
    outcome = agreement.outcome
    assert isinstance(outcome, Agreed)
    assert outcome.roster.table_id.hex() == "02adbb209ea4f1e7462ca3b43fd4a9941ab4b1cfc64eab40c625aa433c21ad7e"


def test_a_follow_on_under_another_roster_is_answered_by_its_own_members():
    # The same messages seat another roster (later kinds: a bot in an empty seat): only the
    # follow-on's members answer, and its roster is theirs, with their new nonces.
    bot = Identity.generate(SeededEntropy(b"a bot taking seat 3"))
    members = OLD.members[:3] + (TableMember(bot.public_key, "127.0.0.1", 6000, bytes(32)),)
    signers = IDENTITIES[:3] + [bot]
    peers = [FollowOn(OLD, FINAL, s.public_key, members=members) for s in signers]
    frames = [peer.answer(signer, True, NONCES[n])
              for n, (peer, signer) in enumerate(zip(peers, signers, strict=False))]
    with pytest.raises(MessageError, match="signed by one of its members"):   # the member who left
        FollowOn(OLD, FINAL, KEYS[3], members=members).answer(IDENTITIES[3], True, NONCES[3])
    for peer in peers:
        for frame in frames:
            peer.receive(frame)
    outcome = peers[0].outcome
    assert isinstance(outcome, Agreed) and all(peer.outcome == outcome for peer in peers)
    assert outcome.roster.members == tuple(TableMember(m.key, m.host, m.port, NONCES[n]) for n, m in enumerate(members))
    assert outcome.roster.table_id == table_id_of(link_of(OLD.table_id, FINAL, "rematch", [m.key for m in members]),
                                                  outcome.roster.members)


# -- the replace-seat proposal: the bot's own answer, signed by a strong key (issue 18, finding 4) --

IDENTITY_POINT = bytes([1]) + bytes(31)         # the Ed25519 identity: a forged signature verifies for it
FORGED = IDENTITY_POINT + bytes(32)             # R = identity, S = 0: valid for any message under that key


def _bot_answer(bot_key: bytes, signer: Identity | None = None, forged: bool = False) -> FollowOnAnswer:
    from p2p_sasaki.protocol.followon import REPLACE_SEAT

    keys = (KEYS[0], bot_key, KEYS[2], KEYS[3])
    link = link_of(OLD.table_id, FINAL, REPLACE_SEAT, keys)
    digest = answer_digest(link, bot_key, True, NONCES[1])
    signature = FORGED if forged else (signer or IDENTITIES[0]).sign(digest)
    return FollowOnAnswer(3, OLD.table_id, FINAL, REPLACE_SEAT, keys, bot_key, True, NONCES[1], signature)


def test_a_forged_signature_verifies_under_the_identity_point_but_no_answer_with_a_weak_key_does():
    answer = _bot_answer(IDENTITY_POINT, forged=True)
    assert crypto.verify_signature(answer.key, answer_digest(answer.link, answer.key, True, answer.nonce), FORGED)
    assert not answer.verify()


def test_a_proposal_with_a_weak_bot_key_or_a_forged_signature_is_refused_with_one_sentence():
    from p2p_sasaki.protocol.followon import proposal_problem

    gone = KEYS[1]
    bot = Identity.generate(SeededEntropy(b"the bot"))
    assert proposal_problem(_bot_answer(bot.public_key, bot), OLD, FINAL, gone) is None
    assert proposal_problem(_bot_answer(IDENTITY_POINT, forged=True), OLD, FINAL, gone) == (
        "the proposal's bot key is weak (the identity, of small order or not canonical): refused")
    small_order = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")   # order 8
    assert proposal_problem(_bot_answer(small_order, forged=True), OLD, FINAL, gone).startswith(
        "the proposal's bot key is weak")
    # a strong key whose answer its holder did not sign (the runner signed with its own key)
    assert proposal_problem(_bot_answer(bot.public_key, IDENTITIES[0]), OLD, FINAL, gone) == (
        "the proposal is not signed by the bot's key: refused")
    assert proposal_problem(_bot_answer(KEYS[2], IDENTITIES[2]), OLD, FINAL, gone) == (
        "the proposal's bot key is already a member's")
