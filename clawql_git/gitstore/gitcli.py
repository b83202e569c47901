"""The real ``git`` binary, for what pygit2 does not do (transport, merges with drivers,
bundles): one place that runs it without prompting and with messages in English."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from clawql_git.errors import StorageError


def run_git(
    cwd: Path, args: Sequence[str], stdin: str | None = None, timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``git args`` in ``cwd``; the caller reads the return code (git never prompts for
    credentials here, and speaks English so its messages can be matched and quoted)."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANGUAGE": "C"}
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
            env=env,
            timeout=timeout,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StorageError(f"cannot run git {' '.join(args[:1])}: {exc}") from exc


def git_message(result: subprocess.CompletedProcess[str]) -> str:
    """Git's own words, without progress noise, on one line per message."""
    lines = [x.strip() for x in (result.stderr + "\n" + result.stdout).splitlines()]
    noise = ("hint:", "remote: Counting", "remote: Compress", "Done")
    keep = [x for x in lines if x and not x.startswith(noise)]
    return "; ".join(keep[-8:]) or f"git exited with status {result.returncode}"
