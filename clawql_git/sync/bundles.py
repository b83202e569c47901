"""Git bundles with the real ``git``: full and incremental (``last pushed..tip``) bundles of
``main`` and ``refs/clawql/audit``, their prerequisites, verification and unbundling."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from clawql_git.errors import StorageError, TamperDetected

BUNDLE_REFS = ("refs/heads/main", "refs/clawql/audit")


@dataclass(frozen=True)
class BundleHeader:
    """What a bundle says it carries and what it needs: refs and prerequisite commits."""

    refs: Mapping[str, str]
    prerequisites: tuple[str, ...]


def _git(
    cwd: Path, *args: str, input_data: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", "-c", "pack.threads=1", *args],
        cwd=cwd,
        input=input_data,
        capture_output=True,
        check=False,
    )


def has_commit(repo: Path, sha: str) -> bool:
    """Is ``sha`` a commit in the repository at ``repo``?"""
    return _git(repo, "cat-file", "-e", f"{sha}^{{commit}}").returncode == 0


def is_ancestor(repo: Path, older: str, newer: str) -> bool:
    """``git merge-base --is-ancestor`` (a commit is its own ancestor)."""
    return _git(repo, "merge-base", "--is-ancestor", older, newer).returncode == 0


def create_bundle(repo: Path, refs: Mapping[str, str], basis: Sequence[str]) -> bytes:
    """The bundle of ``refs`` minus everything reachable from ``basis`` (commits the remote
    already has). Empty ``basis``: a full bundle."""
    with tempfile.TemporaryDirectory(prefix="clawql-bundle-") as tmp:
        out = Path(tmp) / "push.bundle"
        negatives = [f"^{sha}" for sha in basis if has_commit(repo, sha)]
        stdin = "\n".join([*refs, *negatives]).encode() + b"\n"
        result = _git(repo, "bundle", "create", "-q", str(out), "--stdin", input_data=stdin)
        if result.returncode != 0:
            raise StorageError(
                f"git bundle create failed: {result.stderr.decode(errors='replace')}"
            )
        return out.read_bytes()


def read_header(data: bytes, what: str) -> BundleHeader:
    """Parse the v2/v3 bundle header (refs and prerequisites) without git."""
    head, sep, _ = data.partition(b"\n\n")
    lines = head.decode("ascii", errors="replace").splitlines()
    if not sep or not lines or lines[0] not in ("# v2 git bundle", "# v3 git bundle"):
        raise TamperDetected(f"{what} is not a git bundle")
    refs: dict[str, str] = {}
    prereqs: list[str] = []
    for line in lines[1:]:
        if line.startswith("@"):
            continue  # v3 capabilities
        if line.startswith("-"):
            prereqs.append(line[1:].split(" ", 1)[0])
        else:
            sha, _, ref = line.partition(" ")
            refs[ref] = sha
    return BundleHeader(refs, tuple(prereqs))


def write_temp(data: bytes, folder: Path, name: str) -> Path:
    """Write a bundle under ``folder`` for git to read."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return path


def verify_bundle(repo: Path, bundle: Path, what: str) -> None:
    """``git bundle verify``: the bundle is well formed and every prerequisite is present."""
    result = _git(repo, "bundle", "verify", "-q", str(bundle))
    if result.returncode != 0:
        detail = result.stderr.decode(errors="replace").strip()
        raise TamperDetected(f"{what} does not verify (missing prerequisites?): {detail}")


def check_objects(repo: Path, data: bytes, what: str) -> None:
    """``git index-pack --strict`` over the bundle's pack, the check a protected remote's
    ``receive.fsckObjects`` runs (malformed commits, trees, ``.gitmodules``): into a
    throwaway object directory, with the repository's objects as the bases of a thin pack,
    so nothing is written to the repository. (``git fetch`` from a bundle runs no fsck.)"""
    objects = _git(repo, "rev-parse", "--path-format=absolute", "--git-path", "objects")
    _, _, pack = data.partition(b"\n\n")
    with tempfile.TemporaryDirectory(prefix="clawql-fsck-") as tmp:
        (Path(tmp) / "pack").mkdir()
        env = {
            **os.environ,
            "GIT_OBJECT_DIRECTORY": tmp,
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": objects.stdout.decode().strip(),
        }
        result = subprocess.run(
            ["git", "-c", "pack.threads=1", "index-pack", "--strict", "--fix-thin", "--stdin"],
            cwd=repo,
            input=pack,
            env=env,
            capture_output=True,
            check=False,
        )
    if result.returncode != 0:
        detail = result.stderr.decode(errors="replace").strip()
        raise TamperDetected(f"{what} holds objects git fsck refuses: {detail}")


def fetch_bundle(repo: Path, bundle: Path, refs: Mapping[str, str], namespace: str) -> None:
    """Fetch the bundle's refs into ``namespace`` (never onto the vault's own refs)."""
    specs = [f"+{ref}:{namespace}/{ref.rsplit('/', 1)[-1]}" for ref in refs]
    result = _git(repo, "fetch", "-q", "--no-tags", "--no-write-fetch-head", str(bundle), *specs)
    if result.returncode != 0:
        detail = result.stderr.decode(errors="replace").strip()
        raise TamperDetected(f"cannot unpack bundle {bundle.name}: {detail}")
