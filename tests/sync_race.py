"""Two clones pushing to one sync remote at the same instant: the harness the S3 and the
Arweave race tests share (each checks what its backend promises about the outcome)."""

from __future__ import annotations

import threading
from pathlib import Path

from clawql_git import Vault
from clawql_git.sync.service import for_vault


def push_at_once(roots: dict[str, Path], timeout: float) -> dict[str, object]:
    """Push every vault in ``roots`` from its own thread, released together by a barrier:
    name -> its PushResult, or the exception its push raised (so the test can report both)."""
    barrier = threading.Barrier(len(roots))
    results: dict[str, object] = {}

    def run(name: str, root: Path) -> None:
        service = for_vault(Vault.open(root))[0]
        barrier.wait()
        try:
            results[name] = service.push()
        except Exception as exc:  # reported by the caller with the other thread's result
            results[name] = exc

    threads = [threading.Thread(target=run, args=item) for item in roots.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    return results
