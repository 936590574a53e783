"""The examples in Sasku's module docstrings run."""

import doctest
import importlib

import pytest

MODULES = ["errors", "records", "sasku.trumps", "sasku.options", "sasku.scoring", "sasku.deal", "sasku.match",
           "sasku.records"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"p2p_sasaki.{name}")
    result = doctest.testmod(module)
    assert result.failed == 0
    assert result.attempted > 0 or name == "errors"
