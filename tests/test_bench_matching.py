"""bench/codegraph_polyglot.py's matching of codegraph's definitions to clawql's by file and
start line: only names that are the same definition written differently match."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.conftest import bench_module


def _bench() -> ModuleType:
    return bench_module("codegraph_polyglot")


@pytest.mark.parametrize(
    ("theirs", "ours"),
    [
        ("(*jq_input_cb)", "jq_input_cb"),
        ("(Container)", "Container"),
        ("buffer", "~buffer"),
        ("num_bits<uint128>", "num_bits"),
        ("operator <<", "operator<<"),
        ("operator const", "operator const char*"),
        ("string_view", "operator fmt::string_view"),
        ("Rack::Builder", "Builder"),
        ("::HelperOne", "HelperOne"),
    ],
)
def test_the_same_definition_written_differently_matches(theirs: str, ours: str) -> None:
    assert _bench().same_definition(theirs, ours)


@pytest.mark.parametrize(
    ("theirs", "ours"),
    [
        ("(*cb)", "other"),
        ("buffer", "~other"),
        ("num_bits<uint128>", "bits"),
        ("Rack::Builder", "Rack"),
        ("::HelperOne", "HelperTwo"),
        ("parse", "operator()"),
        ("jvp_strtod", "quorem"),
    ],
)
def test_other_definitions_on_the_line_do_not(theirs: str, ours: str) -> None:
    assert not _bench().same_definition(theirs, ours)
