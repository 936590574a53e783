"""The project's only use of ``cryptography`` (and ``nacl``).

Each cryptographic operation lives here once, as a small pure function.
"""

from __future__ import annotations

# ---------------------------------------------------------------------------
# net: identity keys and the join channel (used by protocol/net; branch `net`)
#
# Ed25519 identity keys as raw 32-byte strings (private seed / public key),
# HKDF-SHA256 key derivation and ChaCha20-Poly1305 sealing for the channel a
# SPAKE2 run opens between a table's creator and a joiner.
# ---------------------------------------------------------------------------

import os as _os

from cryptography.exceptions import InvalidSignature as _InvalidSignature
from cryptography.exceptions import InvalidTag as _InvalidTag
from cryptography.hazmat.primitives import hashes as _hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey as _Ed25519PrivateKey,
    Ed25519PublicKey as _Ed25519PublicKey,
)
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as _ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF as _HKDF
from cryptography.hazmat.primitives.serialization import (
    Encoding as _Encoding,
    PublicFormat as _PublicFormat,
)

IDENTITY_KEY_SIZE = 32
SIGNATURE_SIZE = 64


class SealError(ValueError):
    """A sealed message did not open: wrong key, wrong counter or tampered bytes."""


def new_identity_secret() -> bytes:
    """A fresh Ed25519 private key as its raw 32-byte seed (from the OS CSPRNG)."""
    return _os.urandom(IDENTITY_KEY_SIZE)


def identity_public_key(secret: bytes) -> bytes:
    """The raw 32-byte Ed25519 public key of a private seed."""
    public = _Ed25519PrivateKey.from_private_bytes(secret).public_key()
    return public.public_bytes(_Encoding.Raw, _PublicFormat.Raw)


def identity_sign(secret: bytes, data: bytes) -> bytes:
    """An Ed25519 signature (64 bytes) of ``data`` by the private seed ``secret``."""
    return _Ed25519PrivateKey.from_private_bytes(secret).sign(data)


def identity_verify(public: bytes, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` is a valid Ed25519 signature of ``data`` by ``public``."""
    if len(public) != IDENTITY_KEY_SIZE or len(signature) != SIGNATURE_SIZE:
        return False
    try:
        _Ed25519PublicKey.from_public_bytes(public).verify(signature, data)
    except (_InvalidSignature, ValueError):
        return False
    return True


def derive_key(secret: bytes, purpose: bytes) -> bytes:
    """A 32-byte key for one ``purpose`` from a shared secret (HKDF-SHA256, no salt)."""
    return _HKDF(algorithm=_hashes.SHA256(), length=32, salt=None, info=purpose).derive(secret)


def _nonce(counter: int) -> bytes:
    return counter.to_bytes(12, "big")


def seal(key: bytes, counter: int, plaintext: bytes, associated: bytes = b"") -> bytes:
    """ChaCha20-Poly1305 encryption; each (key, counter) pair must be used once."""
    return _ChaCha20Poly1305(key).encrypt(_nonce(counter), plaintext, associated)


def unseal(key: bytes, counter: int, sealed: bytes, associated: bytes = b"") -> bytes:
    """The plaintext of :func:`seal`; raises :class:`SealError` if it does not open."""
    try:
        return _ChaCha20Poly1305(key).decrypt(_nonce(counter), sealed, associated)
    except _InvalidTag:
        raise SealError("the sealed message did not open") from None


# --------------------------------------------------------------- end of net ---
