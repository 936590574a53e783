"""Who is at the table: this peer's identity key; the roster and its members are
defined once, as the join's wire message, in :mod:`p2p_sasaki.protocol.messages`.

A peer is its Ed25519 public key, never an address or an mDNS name; addresses
in a roster only say where to dial.
"""

from __future__ import annotations

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.messages import PROTOCOL_VERSION, TableMember, TableRoster, describe_key

__all__ = ["PROTOCOL_VERSION", "Identity", "TableMember", "TableRoster", "describe_key"]


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
