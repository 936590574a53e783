"""The creator's table options travel as the table's transcript header (its own bytes)."""

from __future__ import annotations

import msgpack
import pytest

from p2p_sasaki.protocol.messages import VERSION, MessageError, TranscriptHeader, VersionMismatchError
from p2p_sasaki.protocol.net.identity import TableMember, TableRoster
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.sasaki_game import SasakiGame
from p2p_sasaki.protocol.session import TableConfig, TableSession
from p2p_sasaki.sasaki.options import TableOptions

MEMBER_NONCE = bytes(range(200, 232))  # a member's join nonce (fresh in real joins)

ROSTER = TableRoster(bytes(range(32)),
                     tuple(TableMember(bytes([i]) * 32, "", 1000 + i, MEMBER_NONCE) for i in range(4)))
CONFIG = TableConfig(hands=3,
                     game=SasakiGame(TableOptions(lead_card="3S", lead_must_contain_3=True, running="any_own_turn")),
                     proofs=False)


def test_the_options_frame_is_the_sessions_transcript_header():
    frame = encode_config(ROSTER, CONFIG)
    session = TableSession(None, ROSTER.keys, ROSTER.table_id, CONFIG)
    assert frame == session.header.encode()
    assert TranscriptHeader.decode(frame).version == VERSION
    assert decode_config(ROSTER, frame) == CONFIG


def test_a_frame_for_another_table_or_version_is_refused():
    other = TableRoster(bytes(32), ROSTER.members)
    with pytest.raises(ValueError, match="another table"):
        decode_config(ROSTER, encode_config(other, CONFIG))
    with pytest.raises(ValueError, match="other members"):
        decode_config(ROSTER, encode_config(TableRoster(ROSTER.table_id, ROSTER.members[::-1]), CONFIG))
    old = TranscriptHeader.decode(encode_config(ROSTER, CONFIG)).to_wire()
    old[0] = VERSION - 1
    with pytest.raises(VersionMismatchError, match=f"this transcript speaks protocol version {VERSION - 1}"):
        decode_config(ROSTER, msgpack.packb(old))
    with pytest.raises(MessageError):
        decode_config(ROSTER, msgpack.packb([b"body", b"signature"]))  # an envelope is not a header


@pytest.mark.parametrize("change", [{"carried": (9, 0, 0, 0)}, {"seats": (3, 2, 1, 0)}, {"follows": bytes(32)},
                                    {"bots": ((3, 0),)}])
def test_a_creator_cannot_send_carried_totals_or_fixed_seats(change):
    """Those fields belong to a replaced seat's table, whose options every member computes."""
    import dataclasses

    with pytest.raises(ValueError, match="carry no carried totals, fixed seats, open bots or follow-on link"):
        decode_config(ROSTER, encode_config(ROSTER, dataclasses.replace(CONFIG, **change)))
