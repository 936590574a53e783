"""The tournament roster (protocol/tournament.py, protocol/messages/tournament.py): its
encoding, every member's signature, the draw's commit and reveal, and the file's checks."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_sasaki.protocol.crypto import IdentityKey
from p2p_sasaki.protocol.messages import (
    DrawCommit,
    DrawReveal,
    MessageError,
    RosterSignature,
    TournamentFile,
    TournamentMember,
    TournamentRoster,
    decode_tournament,
    encode_tournament,
)
from p2p_sasaki.protocol.tournament import (
    RosterAgreement,
    TournamentError,
    draw_commitment,
    draw_order,
    read_tournament,
    roster_digest,
    sign_roster,
    tournament_id_of,
    verify_tournament,
)

NAMES = ("Mina", "Jun", "Ago", "Tiiu", "Peeter")


def keys(count: int) -> list[IdentityKey]:
    """Identity seeds bytes([i]) * 32, i = 1..count, sorted by public key (as the vectors)."""
    return sorted((IdentityKey(bytes([i]) * 32) for i in range(1, count + 1)), key=lambda k: k.public_key)


def contribution(i: int) -> bytes:
    return bytes([100 + i]) * 32


def roster_of(ids: list[IdentityKey], rounds: int = 3) -> TournamentRoster:
    members = tuple(TournamentMember(k.public_key, "127.0.0.1", 5000 + i, bytes([200 + i]) * 32, NAMES[i],
                                     draw_commitment(k.public_key, contribution(i))) for i, k in enumerate(ids))
    return TournamentRoster(tournament_id_of(bytes(range(32)), members), bytes(range(32)), "Club evening", rounds,
                            members)


def agreed_file(ids: list[IdentityKey]) -> TournamentFile:
    roster = roster_of(ids)
    return TournamentFile(roster, tuple(sign_roster(k, roster).signature for k in ids),
                          tuple(contribution(i) for i in range(len(ids))))


# docs/protocol.md, "Tournament test vector": the five-member file's bytes
FILE_VECTOR = (1208, "25d2788952dbd6c53df48ab53d580adc69562fda95c8c83a2e0463c45679b54e", (0, 2, 3, 4, 1))


def test_vector_tournament_file():
    data = encode_tournament(agreed_file(keys(5)))
    verified = read_tournament(data)
    assert verified.roster.names == NAMES
    assert (len(data), hashlib.sha256(data).hexdigest(), verified.draw) == FILE_VECTOR


def test_every_message_round_trips():
    ids = keys(4)
    roster = roster_of(ids)
    for message in (roster, DrawCommit(ids[0].public_key, roster.members[0].draw_commit),
                    sign_roster(ids[1], roster), DrawReveal(ids[2].public_key, contribution(2)), agreed_file(ids)):
        assert decode_tournament(encode_tournament(message)) == message


def test_a_roster_is_four_to_255_members_each_once_with_a_round():
    ids = keys(4)
    roster = roster_of(ids)
    with pytest.raises(MessageError, match="1 once|each member once"):
        encode_tournament(dataclasses.replace(roster, members=roster.members[:3] + roster.members[:1]))
    with pytest.raises(MessageError, match="4..255"):
        encode_tournament(dataclasses.replace(roster, members=roster.members[:3]))
    with pytest.raises(MessageError, match="at least one round"):
        encode_tournament(dataclasses.replace(roster, rounds=0))
    with pytest.raises(MessageError):
        decode_tournament(encode_tournament(roster)[:-1])


def test_the_file_names_the_member_whose_signature_or_contribution_is_wrong():
    ids = keys(5)
    good = agreed_file(ids)
    assert verify_tournament(good).draw == draw_order(good.roster, good.contributions)
    signatures = list(good.signatures)
    signatures[3] = sign_roster(ids[3], roster_of(ids, rounds=4)).signature   # signed another roster
    with pytest.raises(TournamentError) as caught:
        verify_tournament(dataclasses.replace(good, signatures=tuple(signatures)))
    assert caught.value.member == 3 and "signature" in caught.value.reason
    contributions = list(good.contributions)
    contributions[1] = bytes(32)
    with pytest.raises(TournamentError) as caught:
        verify_tournament(dataclasses.replace(good, contributions=tuple(contributions)))
    assert caught.value.member == 1 and "commitment" in caught.value.reason
    forged = dataclasses.replace(good.roster, tournament_id=bytes(32))
    with pytest.raises(TournamentError) as caught:
        verify_tournament(dataclasses.replace(good, roster=forged))
    assert caught.value.member is None and "tournament id" in caught.value.reason
    with pytest.raises(TournamentError, match="not a tournament roster file"):
        read_tournament(encode_tournament(good.roster))


def test_agreement_reveals_only_after_every_signature_and_checks_each_message():
    ids = keys(4)
    roster = roster_of(ids)
    sides = [RosterAgreement(roster, k, contribution(i)) for i, k in enumerate(ids)]
    with pytest.raises(RuntimeError, match="every member signed"):
        sides[0].reveal()
    with pytest.raises(TournamentError) as caught:
        sides[0].add_signature(RosterSignature(ids[2].public_key, sign_roster(ids[1], roster).signature))
    assert caught.value.member == 2
    with pytest.raises(TournamentError, match="not a member"):
        sides[0].add_signature(sign_roster(IdentityKey(bytes([9]) * 32), roster))
    for side in sides:
        for other in sides:
            side.add_signature(other.signature)
    with pytest.raises(TournamentError) as caught:
        sides[0].add_reveal(DrawReveal(ids[1].public_key, contribution(2)))
    assert caught.value.member == 1
    for side in sides:
        for other in sides:
            side.add_reveal(other.reveal())
    files = [side.file() for side in sides]
    assert all(f == files[0] for f in files)
    assert read_tournament(encode_tournament(files[0])).draw == sides[1].draw
    assert roster_digest(roster) != roster_digest(roster_of(ids, rounds=4))
    with pytest.raises(TournamentError, match="another commitment"):
        RosterAgreement(roster, ids[0], contribution(1))


@given(st.lists(st.binary(min_size=32, max_size=32), min_size=4, max_size=12))
def test_the_draw_orders_every_player_once_and_moves_with_any_contribution(shares):
    roster = roster_of(keys(4))
    order = draw_order(roster, shares)
    assert sorted(order) == list(range(len(shares)))


names = st.text(alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S")), min_size=1, max_size=24)


@given(st.integers(4, 9), st.lists(names, min_size=9, max_size=9), st.integers(1, 255),
       st.text(max_size=30), st.binary(min_size=32, max_size=32))
def test_any_roster_round_trips_and_its_file_verifies(count, chosen, rounds, title, invitation):
    ids = keys(count)
    shares = [bytes([i]) * 32 for i in range(count)]
    members = tuple(TournamentMember(k.public_key, "", i, bytes([i]) * 32, chosen[i],
                                     draw_commitment(k.public_key, shares[i])) for i, k in enumerate(ids))
    roster = TournamentRoster(tournament_id_of(invitation, members), invitation, title, rounds, members)
    file = TournamentFile(roster, tuple(sign_roster(k, roster).signature for k in ids), tuple(shares))
    verified = read_tournament(encode_tournament(file))
    assert verified.roster == roster and verified.roster.names == tuple(chosen[:count])
    assert sorted(verified.draw) == list(range(count))
