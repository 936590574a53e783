"""The tournament's roster, its signatures and the first round's draw. Pure (no I/O).

A tournament (docs/protocol.md, "Tournament") starts when every member has signed one
roster and every member's draw contribution is known:

1. The host gathers the members (the join of protocol/handshake.py, one per joiner); each
   member draws a fresh 32-byte contribution and sends only its commitment
   (:func:`draw_commitment`, a :class:`DrawCommit`).
2. The host sends the :class:`TournamentRoster` (id, name, rounds, every member with its
   commitment); every member checks it and signs it (:func:`sign_roster`).
3. Once a member holds every member's signature it reveals its contribution
   (:class:`DrawReveal`). Nobody can choose its contribution after seeing another's: the
   commitments are in the signed roster, and nothing is revealed before all signed.
4. The draw (:func:`draw_order`) is the table's seating draw (protocol/chain.py,
   :func:`seating_order`) over the tournament id and the contributions in roster order:
   the first round's seating and every tie in the standings after it.

:class:`RosterAgreement` keeps one member's side of steps 2-4; :func:`verify_tournament`
checks the resulting file (``tournament.roster``) from nothing but its bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.chain import seating_order, table_id_of
from p2p_sasaki.protocol.crypto import (
    TAG_DRAW_COMMIT,
    TAG_TOURNAMENT_ID,
    TAG_TOURNAMENT_ROSTER,
    IdentityKey,
    is_acceptable_identity_key,
    verify_signature,
)
from p2p_sasaki.protocol.messages.names import describe_key
from p2p_sasaki.protocol.messages.tournament import (
    DrawReveal,
    RosterSignature,
    TournamentFile,
    TournamentMember,
    TournamentRoster,
    decode_tournament,
    encode_tournament,
)
from p2p_sasaki.protocol.messages.wire import MessageError

__all__ = ["TournamentError", "VerifiedTournament", "RosterAgreement", "tournament_id_of", "draw_commitment",
           "roster_digest", "sign_roster", "draw_order", "verify_tournament", "read_tournament"]


class TournamentError(ValueError):
    """The roster or the file does not verify; ``member`` is the player number at fault
    (its signature or contribution is wrong), None when nobody can be named."""

    def __init__(self, reason: str, member: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.member = member


def tournament_id_of(invitation: bytes, members: Sequence[TournamentMember]) -> bytes:
    """H32("tournament-id", invitation, u32(n), key_0, nonce_0, ...): fresh if one nonce is."""
    return table_id_of(invitation, members, tag=TAG_TOURNAMENT_ID)


def draw_commitment(key: bytes, contribution: bytes) -> bytes:
    """H32("tournament/draw-commit", key, contribution): binds the member's key, so nobody
    can copy another's commitment and reveal the same contribution."""
    return crypto.hash32(TAG_DRAW_COMMIT, key, contribution)


def roster_digest(roster: TournamentRoster) -> bytes:
    """What every member signs: H32("tournament/roster", the roster message's bytes)."""
    return crypto.hash32(TAG_TOURNAMENT_ROSTER, encode_tournament(roster))


def sign_roster(identity: IdentityKey, roster: TournamentRoster) -> RosterSignature:
    return RosterSignature(identity.public_key, identity.sign(roster_digest(roster)))


def draw_order(roster: TournamentRoster, contributions: Sequence[bytes]) -> tuple[int, ...]:
    """The player numbers in the order drawn (first drawn: first place in round 1's seating
    and in every tie): the table's seating draw over the tournament id."""
    return seating_order(roster.tournament_id, contributions)


def _check_roster(roster: TournamentRoster) -> None:
    if roster.tournament_id != tournament_id_of(roster.invitation, roster.members):
        raise TournamentError("the tournament id is not the one its invitation and members make")
    for number, member in enumerate(roster.members):
        if not is_acceptable_identity_key(member.key):
            raise TournamentError(f"member {number} ({describe_key(member.key)}) has an unacceptable identity key",
                                  number)


@dataclass(frozen=True)
class VerifiedTournament:
    """A verified ``tournament.roster``: the roster and the draw."""

    roster: TournamentRoster
    draw: tuple[int, ...]
    file: TournamentFile


def verify_tournament(file: TournamentFile) -> VerifiedTournament:
    """Check a roster file: the id, every member's key and signature, and every
    contribution against the member's commitment. Raises :class:`TournamentError`."""
    roster = file.roster
    _check_roster(roster)
    digest = roster_digest(roster)
    for number, (member, signature) in enumerate(zip(roster.members, file.signatures, strict=True)):
        if not verify_signature(member.key, digest, signature):
            raise TournamentError(f"member {number} ({member.name})'s signature on the roster does not verify",
                                  number)
    for number, (member, contribution) in enumerate(zip(roster.members, file.contributions, strict=True)):
        if draw_commitment(member.key, contribution) != member.draw_commit:
            raise TournamentError(f"member {number} ({member.name})'s draw contribution does not match its "
                                  "commitment", number)
    return VerifiedTournament(roster, draw_order(roster, file.contributions), file)


def read_tournament(data: bytes) -> VerifiedTournament:
    """Decode and verify the bytes of ``tournament.roster``."""
    try:
        message = decode_tournament(data)
    except MessageError as error:
        raise TournamentError(f"not a tournament roster file ({error})") from error
    if not isinstance(message, TournamentFile):
        raise TournamentError(f"not a tournament roster file (a {message.TAG} message)")
    return verify_tournament(message)


class RosterAgreement:
    """One member's side of signing the roster and revealing the draw (steps 2-4 above).

    >>> from p2p_sasaki.protocol.crypto import SeededEntropy
    >>> keys = sorted((IdentityKey(bytes([i]) * 32) for i in range(1, 5)), key=lambda k: k.public_key)
    >>> shares = [bytes([i]) * 32 for i in range(4)]
    >>> members = tuple(TournamentMember(k.public_key, "", 0, bytes(32), f"P{i}", draw_commitment(k.public_key, c))
    ...                 for i, (k, c) in enumerate(zip(keys, shares)))
    >>> roster = TournamentRoster(tournament_id_of(bytes(32), members), bytes(32), "club", 3, members)
    >>> sides = [RosterAgreement(roster, k, c) for k, c in zip(keys, shares)]
    >>> for side in sides:
    ...     for other in sides:
    ...         side.add_signature(other.signature)
    >>> for side in sides:
    ...     for other in sides:
    ...         side.add_reveal(other.reveal())
    >>> sides[0].complete and sides[0].draw == sides[3].draw == verify_tournament(sides[2].file()).draw
    True
    """

    def __init__(self, roster: TournamentRoster, identity: IdentityKey, contribution: bytes) -> None:
        _check_roster(roster)
        self.roster = roster
        self.me = roster.index(identity.public_key)
        if draw_commitment(identity.public_key, contribution) != roster.members[self.me].draw_commit:
            raise TournamentError("the roster holds another commitment for this member than ours", None)
        self._contribution = contribution
        self._digest = roster_digest(roster)
        self.signature = sign_roster(identity, roster)
        self._signatures: dict[int, bytes] = {}
        self._contributions: dict[int, bytes] = {}

    def _member(self, key: bytes) -> int:
        try:
            return self.roster.index(key)
        except KeyError as error:
            raise TournamentError(f"{describe_key(key)} is not a member of this tournament") from error

    def add_signature(self, message: RosterSignature) -> None:
        number = self._member(message.key)
        if not verify_signature(message.key, self._digest, message.signature):
            raise TournamentError(f"member {number}'s signature on the roster does not verify", number)
        self._signatures[number] = message.signature

    @property
    def signed(self) -> bool:
        """Every member's signature is here: the contributions may be revealed."""
        return len(self._signatures) == len(self.roster.members)

    def reveal(self) -> DrawReveal:
        """Our contribution; only once every member signed (else RuntimeError)."""
        if not self.signed:
            raise RuntimeError("the draw is revealed only once every member signed the roster")
        return DrawReveal(self.roster.members[self.me].key, self._contribution)

    def add_reveal(self, message: DrawReveal) -> None:
        number = self._member(message.key)
        if draw_commitment(message.key, message.contribution) != self.roster.members[number].draw_commit:
            raise TournamentError(f"member {number}'s draw contribution does not match its commitment", number)
        self._contributions[number] = message.contribution

    @property
    def complete(self) -> bool:
        return self.signed and len(self._contributions) == len(self.roster.members)

    def file(self) -> TournamentFile:
        """The ``tournament.roster`` file's message (RuntimeError until complete)."""
        if not self.complete:
            raise RuntimeError("the roster is not signed and drawn yet")
        count = len(self.roster.members)
        return TournamentFile(self.roster, tuple(self._signatures[i] for i in range(count)),
                              tuple(self._contributions[i] for i in range(count)))

    @property
    def draw(self) -> tuple[int, ...]:
        return draw_order(self.roster, self.file().contributions)
