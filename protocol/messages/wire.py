"""The wire kit: the protocol version, the errors, the field specs and the one codec.

This is the only module that imports ``msgpack`` (tests/test_layers.py): every other module of
the package declares its messages with the specs here and encodes them through :func:`pack`
and :func:`unpack_canonical`.

Decoding is strict: exact types, byte lengths, counts, and the canonical encoding (decoding
then encoding gives back the same bytes), so one value has exactly one byte string. Anything
else raises :class:`MessageError`.

One codec does all of this. Every message class declares its fields once, in order, as
``FIELDS`` (a tuple of :class:`F`: attribute name, wire spec such as ``Bin(32)``,
``UInt(15)``, ``Str(255)``, ``Array(spec, max_count)`` or a nested ``Record``), and the
class's ``to_wire``/``from_wire`` (from :class:`WireStruct`) encode it as a msgpack array
of those fields and check every type, length and count on the way in.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self

import msgpack

PROTOCOL_VERSION = 3
"""The one version of the wire: envelopes, transcript headers, the join and mesh
handshakes and the mDNS hint all carry it, and two peers must speak the same one."""
VERSION = PROTOCOL_VERSION  # the name the envelope and header fields use

MAX_ENVELOPE_BYTES = 1 << 20
TABLE_ID_BYTES = 32
PREV_BYTES = 32
ELEMENT_BYTES = 32
SCALAR_BYTES = 32
NONCE_BYTES = 32
HASH_BYTES = 32
MAX_SEATS = 16
MAX_CARDS = 1024
MAX_UINT = 2**32 - 1


class MessageError(ValueError):
    """A message is malformed: wrong type, length, size, count or encoding."""


class VersionMismatchError(MessageError):
    """A well-formed message of another protocol version (``version``: the one it speaks)."""

    def __init__(self, version: object, who: str = "this peer") -> None:
        super().__init__(version_sentence(version, who))
        self.version = version


def version_sentence(version: object, who: str = "this peer") -> str:
    """The one sentence said when two versions differ (``who`` speaks ``version``).

    >>> version_sentence(0)  # doctest: +ELLIPSIS
    'this peer speaks protocol version 0, we speak version ...; both need the same p2p-sasaki release'
    """
    return (f"{who} speaks protocol version {version}, we speak version {PROTOCOL_VERSION}; "
            "both need the same p2p-sasaki release")


def malformed(what: str) -> MessageError:
    """The error for a message that breaks the wire format (``what``: how)."""
    return MessageError(f"malformed message: {what}")


class Spec(Protocol):
    """How one field travels: ``pack`` gives the msgpack value, ``unpack`` checks one."""

    def pack(self, value: Any) -> Any: ...

    def unpack(self, obj: Any, what: str) -> Any: ...


@dataclass(frozen=True)
class Bin:
    """Exactly ``size`` bytes (msgpack bin)."""

    size: int

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> bytes:
        if type(obj) is not bytes or len(obj) != self.size:
            raise malformed(f"{what} must be {self.size} bytes")
        return obj


@dataclass(frozen=True)
class Bytes:
    """``min_size``..``max_size`` bytes (msgpack bin)."""

    max_size: int
    min_size: int = 0

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> bytes:
        if type(obj) is not bytes or not self.min_size <= len(obj) <= self.max_size:
            raise malformed(f"{what} must be {self.min_size}..{self.max_size} bytes")
        return obj


@dataclass(frozen=True)
class UInt:
    """An integer in 0..``maximum`` (never a bool or a float)."""

    maximum: int = MAX_UINT

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> int:
        if type(obj) is not int or not 0 <= obj <= self.maximum:
            raise malformed(f"{what} must be an integer in 0..{self.maximum}")
        return obj


@dataclass(frozen=True)
class Int:
    """A signed integer in -``bound``..``bound`` (never a bool or a float)."""

    bound: int = 2**31 - 1

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> int:
        if type(obj) is not int or not -self.bound <= obj <= self.bound:
            raise malformed(f"{what} must be an integer in -{self.bound}..{self.bound}")
        return obj


@dataclass(frozen=True)
class Str:
    """UTF-8 text of at most ``max_bytes`` bytes; with ``choices``, one of them."""

    max_bytes: int
    choices: tuple[str, ...] | None = None

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> str:
        if type(obj) is not str or len(obj.encode()) > self.max_bytes:
            raise malformed(f"{what} must be text of at most {self.max_bytes} bytes")
        if self.choices is not None and obj not in self.choices:
            raise malformed(f"unknown {what}")
        return obj


@dataclass(frozen=True)
class Bool:
    """``true`` or ``false``."""

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> bool:
        if type(obj) is not bool:
            raise malformed(f"{what} must be true or false")
        return obj


@dataclass(frozen=True)
class Array:
    """``min_count``..``max_count`` items of ``item``, as a tuple (label: the item's, plus "s")."""

    item: Spec
    max_count: int
    min_count: int = 0

    def pack(self, value: Any) -> Any:
        return [self.item.pack(v) for v in value]

    def unpack(self, obj: Any, what: str) -> tuple[Any, ...]:
        if type(obj) is not list or not self.min_count <= len(obj) <= self.max_count:
            raise malformed(f"{what}s must be an array of {self.min_count}..{self.max_count} items")
        return tuple(self.item.unpack(v, what) for v in obj)


@dataclass(frozen=True)
class F:
    """One declared field: the attribute, its spec, and its name in error messages.

    ``optional``: a trailing field that may be left out (only trailing fields may be): the
    array ends at the last field that differs from its dataclass default, so a message
    without the field keeps its old bytes, and one encoding stays canonical (a received
    array whose last optional field holds its default is refused)."""

    name: str
    spec: Spec
    label: str = ""
    optional: bool = False


def _shape(value: Any, count: int, what: str) -> list[Any]:
    if type(value) is not list or len(value) != count:
        raise malformed(f"the {what} must be an array of {count} fields")
    return value


@dataclass(frozen=True)
class Record:
    """A nested value (any class built from its fields in order) as an array of its fields."""

    cls: Any
    fields: tuple[F, ...]
    name: str

    def pack(self, value: Any) -> Any:
        return [f.spec.pack(getattr(value, f.name)) for f in self.fields]

    def unpack(self, obj: Any, what: str) -> Any:
        return _build(self.cls, self.fields, _shape(obj, len(self.fields), self.name))


def _build(cls: Any, fields: tuple[F, ...], values: list[Any]) -> Any:
    """``cls`` from its checked fields (error label: the field's, else its name), then
    its cross-field ``check`` if it has one."""
    value = cls(**{f.name: f.spec.unpack(v, f.label or f.name.replace("_", " "))
                   for f, v in zip(fields, values, strict=True)})
    check = getattr(value, "check", None)
    if check is not None:
        check()
    return value


class WireStruct:
    """A message declared by ``FIELDS``: encoded as the array of its fields, in order.

    ``check`` (optional) tests what relates several fields, after each field's own checks.
    """

    FIELDS: ClassVar[tuple[F, ...]] = ()
    WHAT: ClassVar[str] = ""

    def to_wire(self) -> list[Any]:
        fields = self.FIELDS
        count = len(fields)
        while count > _required(fields) and getattr(self, fields[count - 1].name) == _default(self, fields[count - 1]):
            count -= 1               # optional trailing fields at their defaults are left out
        return [f.spec.pack(getattr(self, f.name)) for f in fields[:count]]

    @classmethod
    def from_wire(cls, obj: Any) -> Self:
        fields, required = cls.FIELDS, _required(cls.FIELDS)
        if required == len(fields):
            message: Self = _build(cls, fields, _shape(obj, len(fields), cls.WHAT))
            return message
        if type(obj) is not list or not required <= len(obj) <= len(fields):
            raise malformed(f"the {cls.WHAT} must be an array of {required}..{len(fields)} fields")
        message = _build(cls, fields[:len(obj)], obj)
        if len(obj) > required and getattr(message, fields[len(obj) - 1].name) == _default(message,
                                                                                          fields[len(obj) - 1]):
            raise malformed(f"the {cls.WHAT} is not canonically encoded: an optional field at its default is left out")
        return message

    def check(self) -> None:
        """Raise :class:`MessageError` if the fields do not fit together."""


def _required(fields: tuple[F, ...]) -> int:
    """How many leading fields are required (the optional ones are the trailing ones)."""
    count = len(fields)
    while count and fields[count - 1].optional:
        count -= 1
    if any(f.optional for f in fields[:count]):
        raise TypeError("only trailing fields may be optional")
    return count


def _default(value: Any, field: F) -> Any:
    return {f.name: f.default for f in dataclasses.fields(value)}[field.name]


def pack(obj: Any) -> bytes:
    """The msgpack bytes of ``obj`` (bin for bytes, str for text)."""
    data: bytes = msgpack.packb(obj, use_bin_type=True)
    return data


def unpack_canonical(data: Any, what: str) -> Any:
    """The value in ``data`` if it is msgpack, at most :data:`MAX_ENVELOPE_BYTES` and encoded
    canonically (packing it again gives ``data``); else :class:`MessageError` about ``what``."""
    if type(data) is not bytes:
        raise malformed(f"the {what} must be bytes")
    if len(data) > MAX_ENVELOPE_BYTES:
        raise malformed(f"the {what} is larger than {MAX_ENVELOPE_BYTES} bytes")
    try:
        obj = msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True)
    except Exception as exc:  # msgpack raises many types on hostile input
        raise malformed(f"the {what} is not valid msgpack") from exc
    try:
        canonical = pack(obj) == data
    except Exception as exc:  # e.g. an extension type
        raise malformed(f"the {what} holds an unsupported type") from exc
    if not canonical:
        raise malformed(f"the {what} is not canonically encoded")
    return obj


def check_version(version: Any, what: str) -> None:
    """A version that is an integer but not ours is another release, not noise."""
    if type(version) is int and version != VERSION:
        raise VersionMismatchError(version, what)
    if type(version) is not int:
        raise malformed(f"the version must be {VERSION}")
