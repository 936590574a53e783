"""Who is at the table: identity keys and the roster the join hands to the mesh.

A peer is its Ed25519 public key, never an address or an mDNS name; addresses
in a roster only say where to dial.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p_sasaki.protocol import crypto

PROTOCOL_VERSION = 1
"""Version of the network protocol (mDNS hints, join and mesh handshakes)."""


def describe_key(key: bytes) -> str:
    """A short, stable name for a public key in messages: ``peer 1a2b3c4d``."""
    return f"peer {key[:4].hex()}"


class Identity(crypto.IdentityKey):
    """This peer's Ed25519 identity key; ``secret`` is the 32-byte seed to keep on disk."""

    def __init__(self, secret: bytes) -> None:
        super().__init__(secret)
        self.secret = bytes(secret)

    @classmethod
    def generate(cls, entropy: crypto.Entropy = crypto.system_entropy) -> Identity:
        return cls(entropy(32))

    def __repr__(self) -> str:  # never print the secret
        return f"<Identity {describe_key(self.public_key)}>"


@dataclass(frozen=True)
class TableMember:
    """One member of a table: public key and the address its mesh listens on."""

    key: bytes
    host: str
    port: int

    def __str__(self) -> str:
        return f"{describe_key(self.key)} ({self.host}:{self.port})"


@dataclass(frozen=True)
class TableRoster:
    """Every member of a table: the creator first, then the joiners in join order.

    Seating is decided later by the protocol (joint randomness); this order only
    records who joined when.
    """

    table_id: bytes
    members: tuple[TableMember, ...]

    def member(self, key: bytes) -> TableMember:
        for member in self.members:
            if member.key == key:
                return member
        raise KeyError(describe_key(key))

    def __contains__(self, key: object) -> bool:
        return any(member.key == key for member in self.members)

    @property
    def keys(self) -> tuple[bytes, ...]:
        return tuple(member.key for member in self.members)
