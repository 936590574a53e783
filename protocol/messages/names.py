"""Players' names and the short form of a key (a member that chose no name is called by it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from p2p_sasaki.protocol.messages.wire import malformed

MAX_NAME_CHARS = 24


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a player's name, or None: a name is 1..24 characters, each
    printable (no Unicode "Other" or "Separator" character but the space: no control,
    format or bidirectional character, no line break or tab), with no space at either end.

    >>> name_problem("Mina") is None
    True
    >>> name_problem("a\\tb")
    'a name cannot hold control or invisible characters'
    """
    if not 1 <= len(name) <= MAX_NAME_CHARS:
        return f"a name is 1 to {MAX_NAME_CHARS} characters"
    if not name.isprintable():
        return "a name cannot hold control or invisible characters"
    if name != name.strip(" "):
        return "a name cannot start or end with a space"
    return None


def default_name(key: bytes) -> str:
    """The name of a member that chose none: its key's short form, ``peer 1a2b3c4d``."""
    return describe_key(key)


@dataclass(frozen=True)
class Name:
    """A player's name (:func:`name_problem`): UTF-8 text of 1..24 printable characters."""

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> str:
        if type(obj) is not str:
            raise malformed(f"{what} must be text")
        problem = name_problem(obj)
        if problem is not None:
            raise malformed(f"{what}: {problem}")
        return obj


def describe_key(key: bytes) -> str:
    """A short, stable name for a public key in messages: ``peer 1a2b3c4d``."""
    return f"peer {key[:4].hex()}"
