"""The layers import in one direction only (design.md, Layers).

Installed names: the folders protocol/ and cli/ install as p2p_sasaki.protocol and
p2p_sasaki.cli. p2p_sasaki (the game) imports nothing of the project's other packages
(only p2p_sasaki/__main__.py reaches the command line); protocol imports the game only, and
only through its game adapters (protocol/*_game.py); only protocol/net touches trio, sockets or
zeroconf; only protocol/crypto.py imports cryptography, rbcl or spake2; only
protocol/messages/wire.py imports msgpack.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# Where each installed package's source lives (pyproject.toml, [tool.setuptools.package-dir]).
SOURCE = {"p2p_sasaki": ROOT / "p2p_sasaki", "p2p_sasaki.protocol": ROOT / "protocol",
          "p2p_sasaki.cli": ROOT / "cli"}
LAYERS = ("p2p_sasaki.protocol.net", "p2p_sasaki.protocol", "p2p_sasaki.cli", "p2p_sasaki")


def layer_of(name: str) -> str:
    """The project layer an imported name belongs to, or its top-level name if it is outside."""
    for layer in LAYERS:
        if name == layer or name.startswith(layer + "."):
            return {"p2p_sasaki.protocol.net": "protocol.net", "p2p_sasaki.protocol": "protocol",
                    "p2p_sasaki.cli": "cli", "p2p_sasaki": "p2p_sasaki"}[layer]
    return name.split(".")[0]


def import_nodes(path: Path) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """Every import statement of one source file, anywhere in it (inside functions too): each
    text is parsed once per run, not once per check and library (keyed by the text, so a file
    rewritten in a test is parsed again)."""
    return _import_nodes(path.read_text(encoding="utf-8"), str(path))


@functools.cache
def _import_nodes(text: str, filename: str) -> tuple[ast.Import | ast.ImportFrom, ...]:
    tree = ast.parse(text, filename=filename)
    return tuple(node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in import_nodes(path):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.level == 0, f"{path}: relative import; use the installed name"
            names.add(node.module)
    return {layer_of(name) for name in names}


def python_files(package: str) -> list[Path]:
    """The source files of one layer ("p2p_sasaki" means the game itself, without the others)."""
    if package == "p2p_sasaki":
        return sorted(path for path in SOURCE["p2p_sasaki"].rglob("*.py") if path.name != "__main__.py")
    return sorted(SOURCE["p2p_sasaki." + package].rglob("*.py"))


def test_every_import_uses_the_installed_names():
    for folder in ("p2p_sasaki", "protocol", "cli", "tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in import_nodes(path):
                modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                           else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                for module in modules:
                    assert module.split(".")[0] not in {"protocol", "cli"}, (path, module)


def test_only_the_main_module_reaches_the_command_line():
    main = SOURCE["p2p_sasaki"] / "__main__.py"
    assert imported_modules(main) == {"cli"}


def test_engine_imports_no_other_layer_and_no_io():
    forbidden = {"protocol", "protocol.net", "cli", "trio", "socket", "zeroconf", "msgpack",
                 "nacl", "rbcl", "cryptography", "time", "secrets", "os"}
    for path in python_files("p2p_sasaki"):
        assert not imported_modules(path) & forbidden, path


def test_protocol_imports_only_the_engine_and_no_io():
    for path in python_files("protocol"):
        if "net" in path.relative_to(ROOT / "protocol").parts:
            continue
        found = imported_modules(path)
        assert not found & {"cli", "trio", "socket", "zeroconf", "protocol.net"}, path


ENGINE_MODULES = ("p2p_sasaki.cards", "p2p_sasaki.sasaki", "p2p_sasaki.sasku")


def engine_imports(path: Path) -> set[str]:
    """The engine modules (a game's rules and cards) ``path`` imports, anywhere in it."""
    names: set[str] = set()
    for node in import_nodes(path):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in names if any(name == m or name.startswith(m + ".") for m in ENGINE_MODULES)}


def is_game_adapter(path: Path) -> bool:
    """protocol/*_game.py or protocol/games/: the only places of protocol/ that know a game."""
    relative = path.relative_to(SOURCE["p2p_sasaki.protocol"])
    return relative.parts[0] == "games" or (len(relative.parts) == 1 and path.stem.endswith("_game"))


def test_nothing_in_protocol_but_the_game_adapters_imports_the_engine():
    """The session, config, header, driver and audit ask the game (protocol/game.py); only
    an adapter (protocol/sasaki_game.py, ...) may import a game's engine."""
    adapters = []
    for path in python_files("protocol"):
        if is_game_adapter(path):
            adapters.append(path.name)
            continue
        assert not engine_imports(path), (path, engine_imports(path))
    assert "sasaki_game.py" in adapters


def test_the_engine_import_check_sees_every_form(tmp_path):
    probe = tmp_path / "probe.py"
    for line in ("from p2p_sasaki.cards import CardSet", "import p2p_sasaki.sasaki.hand",
                 "def f():\n    from p2p_sasaki.sasaki.records import write_record",
                 "from p2p_sasaki import sasaki"):
        probe.write_text(line + "\n")
        assert engine_imports(probe), line
    probe.write_text("from p2p_sasaki.protocol.game import Game\n")
    assert not engine_imports(probe)


def test_cli_is_not_imported_below_it():
    for package in ("p2p_sasaki", "protocol"):
        for path in python_files(package):
            assert "cli" not in imported_modules(path), path


def test_crypto_and_wire_libraries_stay_in_their_one_module():
    owners = {"nacl": "crypto.py", "rbcl": "crypto.py", "cryptography": "crypto.py", "spake2": "crypto.py",
              "msgpack": "messages/wire.py"}
    for package in ("p2p_sasaki", "protocol", "cli"):
        for path in python_files(package):
            for library, owner in owners.items():
                if library in imported_modules(path):
                    assert path == SOURCE["p2p_sasaki.protocol"] / owner, (path, library)


def test_msgpack_is_imported_by_the_wire_module_alone():
    """protocol/messages/wire.py is the codec: the payloads, the envelope, the header, the
    handshake messages and the follow-on answers encode through it, never msgpack directly."""
    importers = {path.relative_to(ROOT).as_posix() for package in ("p2p_sasaki", "protocol", "cli")
                 for path in python_files(package) if "msgpack" in imported_modules(path)}
    assert importers == {"protocol/messages/wire.py"}


def project_module(path: Path) -> str:
    """The installed name of a project source file."""
    for package, folder in sorted(SOURCE.items(), key=lambda item: -len(str(item[1]))):
        if path.is_relative_to(folder):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            return ".".join((package, *parts))
    raise AssertionError(path)


def import_graph() -> dict[str, set[str]]:
    """Every project module -> the project modules it imports, anywhere in it (inside
    functions too). ``from package import name`` counts name as a module when it is one."""
    files = {project_module(path): path for folder in SOURCE.values() for path in folder.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        edges: set[str] = set()
        for node in import_nodes(path):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names if alias.name in files)
            elif isinstance(node, ast.ImportFrom) and node.module:
                if node.module in files:
                    edges.add(node.module)
                edges.update(f"{node.module}.{alias.name}" for alias in node.names
                             if f"{node.module}.{alias.name}" in files)
        edges.discard(module)
        graph[module] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (a list of modules, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_no_import_cycle_among_project_modules():
    """Imports run one way: any cycle among the project's modules fails, including an
    import inside a function (a lazy import does not make a cycle acceptable)."""
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle or ())


def test_the_cycle_check_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
