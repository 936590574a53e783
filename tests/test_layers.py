"""The layers import in one direction only (design.md, Layers).

p2p_sasaki imports nothing of the project's other packages; protocol imports
p2p_sasaki only; only protocol/net touches trio, sockets or zeroconf; only
protocol/crypto.py imports cryptography or nacl; only protocol/messages.py
imports msgpack.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {name.split(".")[0] if not name.startswith("protocol.net") else "protocol.net" for name in names}


def python_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def test_engine_imports_no_other_layer_and_no_io():
    forbidden = {"protocol", "protocol.net", "cli", "trio", "socket", "zeroconf", "msgpack",
                 "nacl", "cryptography", "time", "secrets", "os"}
    for path in python_files("p2p_sasaki"):
        assert not imported_modules(path) & forbidden, path


def test_protocol_imports_only_the_engine_and_no_io():
    for path in python_files("protocol"):
        if "net" in path.relative_to(ROOT / "protocol").parts:
            continue
        found = imported_modules(path)
        assert not found & {"cli", "trio", "socket", "zeroconf", "protocol.net"}, path


def test_cli_is_not_imported_below_it():
    for package in ("p2p_sasaki", "protocol"):
        for path in python_files(package):
            assert "cli" not in imported_modules(path), path


def test_crypto_and_wire_libraries_stay_in_their_one_module():
    owners = {"nacl": "crypto.py", "cryptography": "crypto.py", "msgpack": "messages.py"}
    for package in ("p2p_sasaki", "protocol", "cli"):
        for path in python_files(package):
            for library, owner in owners.items():
                if library in imported_modules(path):
                    assert path == ROOT / "protocol" / owner, (path, library)
