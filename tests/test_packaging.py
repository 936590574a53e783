"""What the installed package carries, and the type-check script's mapping of the folders."""

from __future__ import annotations

import importlib.util
import tomllib
from importlib.resources import files
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_typecheck() -> ModuleType:
    spec = importlib.util.spec_from_file_location("typecheck", ROOT / "tools" / "typecheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_installed_package_is_marked_typed() -> None:
    # PEP 561: the marker at the top covers p2p_sasaki.protocol and p2p_sasaki.cli too.
    assert files("p2p_sasaki").joinpath("py.typed").is_file()


def test_license_file_matches_the_declared_license() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 p2p-sasaki developers\n")


def test_typecheck_tree_has_the_installed_layout(tmp_path: Path) -> None:
    typecheck = load_typecheck()
    typecheck.build_tree(tmp_path)
    package = tmp_path / "p2p_sasaki"
    assert (package / "sasaki" / "hand.py").read_bytes() == (ROOT / "p2p_sasaki" / "sasaki" / "hand.py").read_bytes()
    assert (package / "protocol" / "deck.py").read_bytes() == (ROOT / "protocol" / "deck.py").read_bytes()
    assert (package / "protocol" / "net" / "framing.py").is_file()
    assert (package / "cli" / "main.py").is_file()
    assert (package / "py.typed").is_file()
    # The mapping is pyproject.toml's package-dir, not a second opinion.
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    package_dir = tool["setuptools"]["package-dir"]
    assert {f"p2p_sasaki.{name}": folder for name, folder in typecheck.FOLDERS.items()} | {
        "p2p_sasaki": "p2p_sasaki"} == package_dir


def test_typecheck_reports_repository_paths() -> None:
    path = load_typecheck().repository_path
    assert path("p2p_sasaki/protocol/net/join.py:3: error: x") == "protocol/net/join.py:3: error: x"
    assert path("p2p_sasaki/cli/tui.py:9: note: y") == "cli/tui.py:9: note: y"
    assert path("p2p_sasaki/hand.py:1: error: z") == "p2p_sasaki/hand.py:1: error: z"
    assert path("Success: no issues found") == "Success: no issues found"


def test_no_module_is_exempt_from_the_type_check() -> None:
    """Every module of p2p_sasaki, p2p_sasaki.protocol and p2p_sasaki.cli is checked strictly;
    only test modules may be on the not-yet-clean list (pyproject.toml), which only shrinks."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    overrides = tomllib.loads(text)["tool"]["mypy"]["overrides"]
    exempt = [module for section in overrides if section.get("ignore_errors", False)
              for module in ([section["module"]] if isinstance(section["module"], str) else section["module"])]
    assert all(module.startswith("tests.") for module in exempt), exempt


def test_ruff_waives_no_rule_per_file() -> None:
    """Every ruff rule holds in every folder: a line that must stay long says so itself (noqa)."""
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]
    assert "per-file-ignores" not in lint


def test_every_package_folder_is_installed() -> None:
    """pyproject.toml lists every folder with an __init__.py under its installed name (a
    missing one installs without its modules: an editable install hides that, a fresh
    ``pip install .`` does not), and nothing else."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {installed: Path(folder) for installed, folder in project["package-dir"].items()}
    found = set()
    for installed, folder in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((installed, *parts)))
    assert sorted(project["packages"]) == sorted(found)
