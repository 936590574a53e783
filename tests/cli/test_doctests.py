"""The examples in the docstrings of the command's words run (render, presenter, audit, tui)."""

import doctest
import importlib

import pytest

MODULES = ["cli.render", "cli.presenter", "cli.audit", "cli.demo", "cli.sasku_text", "cli.standings"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"p2p_sasaki.{name}")
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0
