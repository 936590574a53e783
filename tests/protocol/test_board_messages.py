"""The board's messages (protocol/messages/board.py): one envelope of each type, byte for byte,
and the board file's header (docs/protocol.md, "Board (duplicate tournaments)", test vectors);
the strict decoding of the board body."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.board import Outcome, Seating, board_id, outcomes_hash
from p2p_sasaki.protocol.crypto import IdentityKey, ProofContext, SeededEntropy
from p2p_sasaki.protocol.messages import MessageError, VersionMismatchError, pack, unpack_canonical
from p2p_sasaki.protocol.messages.board import (
    BoardBody,
    BoardCommit,
    BoardDone,
    BoardHeader,
    BoardHop,
    BoardKey,
    BoardNonce,
    BoardProof,
    BoardStrip,
    decode_board,
    sign_board,
    verify_board,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
BOARD = bytes(range(32))
KEY = IdentityKey(bytes(range(32)))
PLAYER = 17   # of P = 20 players: slots commit 0, nonce 1, hop 19, proof 39, strip t 41+t, done 61, key 62


def vector_payloads() -> dict[str, tuple[int, object]]:
    """(slot, payload) of each board message type, built as docs/protocol.md says."""
    entropy = SeededEntropy(b"vector")
    cards = crypto.card_points(BOARD, bytes(32), 4)
    base = crypto.base_point(BOARD, bytes(32))
    x = crypto.random_scalar(entropy)
    perm = crypto.random_permutation(entropy, 4)
    out, out_base = crypto.shuffle(x, perm, cards, base)
    argument = crypto.shuffle_argument_prove(ProofContext(BOARD, bytes(32), "shuffle/0", 0), x, perm, cards, base,
                                             out, out_base, entropy)
    return {
        "board/commit": (0, BoardCommit(bytes(32))),
        "board/nonce": (1, BoardNonce(b"\x11" * 32)),
        "board/shuffle": (19, BoardHop(out, out_base)),
        "board/shuffle-proof": (39, BoardProof(argument)),
        "board/strip": (44, BoardStrip(3, (cards[0],), (b"\x22" * 64,))),
        "board/done": (61, BoardDone(2, b"\xcc" * 32, (-2, 2), (5,))),
        "board/key": (62, BoardKey(crypto.scalar_bytes(x), b"\xdd" * 32)),
    }


def vector_envelopes() -> dict[str, str]:
    return {kind: sign_board(BoardBody(BOARD, slot, PLAYER, payload), KEY).hex()  # type: ignore[arg-type]
            for kind, (slot, payload) in vector_payloads().items()}


def vector_header() -> BoardHeader:
    keys = tuple(IdentityKey(bytes([i + 1]) * 32).public_key for i in range(5))
    return BoardHeader(bytes(32), 2, ((3, 0, 4, 1),), (2,), keys, 36, True)


def test_each_board_envelope_round_trips_and_verifies():
    for kind, data in vector_envelopes().items():
        message = decode_board(bytes.fromhex(data))
        assert message.body.type == kind and message.body.player == PLAYER and message.raw.hex() == data
        assert verify_board(message, KEY.public_key)
        assert not verify_board(message, IdentityKey(bytes(32)).public_key)


def test_the_docs_carry_every_board_vector():
    text = DOCS.read_text().replace("\n", "")
    for kind, data in vector_envelopes().items():
        assert data in text, kind
    header = vector_header()
    assert header.encode().hex() in text
    board = board_id(header.tournament, header.round, Seating(header.tables, header.byes), header.player_keys)
    assert board.hex() in text
    assert outcomes_hash(board, [Outcome(b"\xcc" * 32, (-2, 2), (5,))]).hex() in text


def test_the_board_body_is_strict():
    data = bytes.fromhex(vector_envelopes()["board/done"])
    body_bytes, signature = unpack_canonical(data, "envelope")
    fields = unpack_canonical(body_bytes, "body")
    for change in ({"player": 256}, {"version": 2}, {"type": "deck/commit"}, {"board": bytes(31)}):
        bad = {**fields, **change}
        with pytest.raises(MessageError) as caught:
            decode_board(pack([pack(bad), signature]))
        assert isinstance(caught.value, VersionMismatchError) == ("version" in change)
    reordered = dict(reversed(list(fields.items())))
    with pytest.raises(MessageError):
        decode_board(pack([pack(reordered), signature]))
    with pytest.raises(MessageError):   # leavers out of order
        BoardDone.from_wire([0, bytes(32), [], [3, 1]])
    with pytest.raises(MessageError):   # an optional field at its default is left out, never sent empty
        BoardDone.from_wire([0, bytes(32), [], []])
    with pytest.raises(MessageError):
        BoardHeader.decode(BoardHeader(bytes(32), 1, ((0, 1, 2, 3),), (3,), vector_header().player_keys).encode())
