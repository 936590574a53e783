"""Type-check the installed package p2p_sasaki from the repository's folders.

The repository keeps three top-level folders that install under one name (pyproject.toml,
[tool.setuptools.package-dir]): p2p_sasaki/ -> p2p_sasaki, protocol/ -> p2p_sasaki.protocol,
cli/ -> p2p_sasaki.cli. mypy derives module names from directories and cannot follow
setuptools' editable-install finder, so this script builds that mapping as a temporary tree
of symlinks (a copy where symlinks are not allowed), runs mypy there with the repository's
pyproject.toml, and prints the findings with repository paths. It works the same for an
editable install and for a clean clone in CI; third-party packages come from the running
interpreter's environment.

    python3 tools/typecheck.py            # mypy -p p2p_sasaki -p tests -p bench, pyproject.toml's settings

The tests and the benchmarks are checked beside the package (their folders are linked into
the tree as they are; pyproject.toml relaxes only what their own functions must annotate).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "p2p_sasaki"
# Installed subpackage -> repository folder (pyproject.toml, [tool.setuptools.package-dir]).
FOLDERS = {"protocol": "protocol", "cli": "cli"}
# Checked too, under their own names (folders without __init__.py: namespace packages).
ALSO = ("tests", "bench")


def _link(source: Path, target: Path) -> None:
    try:
        target.symlink_to(source, target_is_directory=source.is_dir())
    except OSError:
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)


def build_tree(base: Path) -> None:
    """base/p2p_sasaki: the engine's files, plus protocol/ and cli/ under their installed names."""
    package = base / PACKAGE
    package.mkdir()
    for entry in sorted((ROOT / PACKAGE).iterdir()):
        if entry.name != "__pycache__" and entry.name not in FOLDERS:
            _link(entry, package / entry.name)
    for name, folder in FOLDERS.items():
        _link(ROOT / folder, package / name)
    for folder in ALSO:
        _link(ROOT / folder, base / folder)


def repository_path(line: str) -> str:
    """p2p_sasaki/protocol/deck.py:3: ... -> protocol/deck.py:3: ..."""
    for name, folder in FOLDERS.items():
        prefix = f"{PACKAGE}/{name}/"
        if line.startswith(prefix):
            return folder + "/" + line[len(prefix):]
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mypy_args", nargs="*", help="extra arguments for mypy (after --)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="p2p-sasaki-mypy-") as tmp:
        base = Path(tmp)
        build_tree(base)
        config = ROOT / "pyproject.toml"
        command = [sys.executable, "-m", "mypy", "--config-file", str(config),
                   "--cache-dir", str(ROOT / ".mypy_cache"), "--explicit-package-bases", "-p", PACKAGE,
                   *(option for folder in ALSO for option in ("-p", folder)), *args.mypy_args]
        # Run inside the tree so that its p2p_sasaki, not an installed copy, is the one checked.
        env = {**os.environ, "MYPY_FORCE_COLOR": "0"}
        env.pop("MYPYPATH", None)
        result = subprocess.run(command, cwd=base, env=env, capture_output=True, text=True)
    for line in result.stdout.splitlines():
        print(repository_path(line))
    sys.stderr.write(result.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
