"""The README's code-anchored memory block runs as written, line by line in a shell, on a fresh
demo vault made the way the README's first command makes it, and does what it says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, SAMPLE

README = (ROOT / "README.md").read_text()


def block_lines() -> list[str]:
    block = README.split("<!-- anchors:start -->\n", 1)[1].split("<!-- anchors:end -->", 1)[0]
    body = block.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in body.splitlines() if line.strip()]


def test_the_code_anchored_memory_block_runs(tmp_path: Path) -> None:
    shim = tmp_path / "bin" / "clawql"  # `clawql` is this interpreter running this checkout
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m clawql_git "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env.update(
        PATH=f"{shim.parent}{os.pathsep}{env['PATH']}",
        PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])]),
        CLAWQL_EMBEDDING_MODEL="hash",
        CLAWQL_VAULT="demo-vault",
    )
    made = subprocess.run(
        ["clawql", "memory", "init", "demo-vault", "--from", str(SAMPLE)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    outputs = []
    for line in block_lines():
        done = subprocess.run(
            ["sh", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        outputs.append(done.stdout + done.stderr)
    first, second = (
        o for o, line in zip(outputs, block_lines(), strict=True) if "stale-memory" in line
    )
    assert "0 of 1 anchored entries stale" in first
    assert (
        "parse-config-returns-a-plain-dict.md" in second
        and "changed: config.py:parse_config" in second
    )
    found = json.loads(
        next(
            o for o, line in zip(outputs, block_lines(), strict=True) if "find-symbol" in line
        ).split("\n(")[0]
    )
    memory = {m["entry"].split("/")[-1]: m["state"] for m in found["items"][0]["memory"]}
    assert memory["parse-config-returns-a-plain-dict.md"] == "changed"
    assert any(name.startswith("code-change-") for name in memory)
    assert "code changed since written: config.py:parse_config changed" in outputs[-1]
    changes = list((tmp_path / "demo-vault" / "code_changes").glob("*/code-change-*.md"))
    assert len(changes) == 1
    text = changes[0].read_text()
    assert "breaking_change: true" in text and "session_id: s-43" in text
    assert "parse_config returns a plain dict]]" in text
