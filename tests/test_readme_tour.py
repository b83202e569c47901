"""The README's tour runs as written: every line of its block, in order, on a fresh demo vault
made the way the README's first command makes it."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, SAMPLE

README = (ROOT / "README.md").read_text()


def tour_lines() -> list[str]:
    block = README.split("<!-- tour:start -->\n", 1)[1].split("<!-- tour:end -->", 1)[0]
    body = block.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in body.splitlines() if line.strip()]


def test_the_tour_is_there_and_names_real_entries() -> None:
    lines = tour_lines()
    assert len(lines) >= 10
    for line in lines:
        for word in shlex.split(line, comments=True):
            if word.endswith(".md") and "/" in word:
                assert (SAMPLE / word).is_file(), f"the tour names {word}, not in sample-vault"


def test_every_line_of_the_tour_runs(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env["CLAWQL_EMBEDDING_MODEL"] = "hash"  # the packaged model answers the same; faster here
    made = subprocess.run(
        [sys.executable, "-m", "clawql_git", "memory", "init", "demo-vault", "--from", str(SAMPLE)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    ran = 0
    for line in tour_lines():
        words = shlex.split(line, comments=True)
        if words[:2] == [".", ".venv/bin/activate"]:
            continue  # the test runs in the test's own interpreter
        if words[0] == "export":
            key, _, value = words[1].partition("=")
            env[key] = value
            continue
        if words[0] == "clawql":
            argv = [sys.executable, "-m", "clawql_git", *words[1:]]
        elif words[0] == "git":
            argv = words
        else:
            pytest.fail(f"the tour runs {words[0]!r}, which this test does not know")
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        assert done.stdout.strip(), f"{line} printed nothing"
        ran += 1
    assert ran >= 10
