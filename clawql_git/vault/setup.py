"""Creating vaults: the first commit's plan (a new vault, or an adopted Obsidian folder), the
files a seed folder brings, and the git hooks. The facade's ``Vault.init`` and ``Vault.seed``
write what is planned here through the writer."""

from __future__ import annotations

import shutil
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clawql_git.config import VAULT_TOML, Settings
from clawql_git.errors import InvalidInput, NotFound, VaultStateError
from clawql_git.gitstore import GitStore
from clawql_git.gitstore.files import atomic_write
from clawql_git.model.drafts import Draft, draft_from_markdown, finalize
from clawql_git.model.entry import (
    ENTRY_SUFFIXES,
    Entry,
    decode_text,
    parse_yaml_mapping,
    split_frontmatter,
)
from clawql_git.model.identity import Identity
from clawql_git.model.paths import is_entry_path
from clawql_git.vault.importer import folder_files
from clawql_git.vault.writer import Plan, validate

HOOK_NAMES = ("post-commit", "post-checkout", "post-merge", "post-rewrite")
RESERVED_ADOPT = ("index.md", "log.md")
GITATTRIBUTES = """\
# Generated catalogs are merged by regenerating them (clawql-git).
index.md merge=clawql-catalog
**/index.md merge=clawql-catalog
log.md merge=clawql-catalog
log/*.md merge=clawql-catalog
*.md text eol=lf
"""


def hooks_source() -> Path:
    """The folder holding the git hook shims (packaged copy, else the source checkout's)."""
    package = Path(__file__).resolve().parent.parent  # clawql_git/
    packaged = package / "_hooks"
    if packaged.is_dir():
        return packaged
    return package.parent / "hooks"


def clawql_command() -> str:
    """How hooks should call clawql: the interpreter running us, so venvs work off PATH."""
    return f"{sys.executable} -m clawql_git"


def install_hooks(store: GitStore) -> list[str]:
    """Copy the hook shims into .git/hooks (our own files are replaced, others kept)."""
    target = store.gitdir / "hooks"
    target.mkdir(exist_ok=True)
    installed = []
    for name in HOOK_NAMES:
        src = hooks_source() / name
        if not src.is_file():
            raise NotFound(f"hook shim {src} is missing from the installation")
        dest = target / name
        if dest.exists() and "clawql-git" not in dest.read_text(errors="replace"):
            continue  # a hook of the user's own: leave it
        shutil.copyfile(src, dest)
        dest.chmod(0o755)
        installed.append(name)
    store.config_set("clawql.command", clawql_command())
    store.config_set("merge.clawql-catalog.name", "clawql-git generated catalog")
    store.config_set("merge.clawql-catalog.driver", "true")
    return installed


def vault_toml(vault_id: str) -> bytes:
    """The committed vault settings of a new vault."""
    import tomli_w

    created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    data: dict[str, Any] = {
        "vault": {"id": vault_id, "created": created, "format": "okf", "format_version": "0.1"},
        "settings": {},
    }
    return tomli_w.dumps(data).encode()


def is_vault(path: Path) -> bool:
    """True when ``path`` already holds a vault (settings committed, a git repository)."""
    return (path / VAULT_TOML).is_file() and (path / ".git").exists()


def first_commit(
    path: Path, adopt: bool, default_type: str | None, settings: Settings
) -> tuple[GitStore, Plan, dict[str, bytes]]:
    """The repository of a new vault at ``path``, the plan of its first commit (everything
    adopted is validated before the repository is created) and the adopted notes' bytes as
    read, for ``settle_adopted`` after the commit."""
    existing = list(folder_files(path)) if path.is_dir() else []
    if existing and not adopt:
        raise VaultStateError(
            f"{path} is not empty and not a vault ({len(existing)} files); "
            "pass --adopt to take in its Markdown, or choose an empty folder"
        )
    drafts, raw = _adoption(settings, path, existing, default_type) if adopt else ([], {})
    files: dict[str, bytes | None] = {VAULT_TOML: vault_toml(new_vault_id())}
    files[".gitattributes"] = GITATTRIBUTES.encode()
    files.update(raw)
    changes: dict[str, Entry | None] = {
        d.path or "": Entry(d.path or "", d.frontmatter, d.meta, d.body) for d in drafts
    }
    plan = Plan("MEMORY_INIT", changes, "initialise vault", raw_files=files)
    validate(plan)  # the writer's own checks (every file scanned), before the repository exists
    originals = {rel: (path / rel).read_bytes() for rel in changes}
    path.mkdir(parents=True, exist_ok=True)
    store = GitStore.open(path) if (path / ".git").exists() else GitStore.init(path)
    store.start_checkout()
    return store, plan, originals


def settle_adopted(store: GitStore, originals: dict[str, bytes]) -> list[str]:
    """Give adopted notes on disk the text that was committed (the frontmatter adoption added),
    so the work tree holds exactly the first commit and ``git commit -a`` cannot strip it. The
    work-tree sync keeps such files, as it keeps any file a person wrote; a note changed since
    adoption read it is left alone. Returns the paths rewritten."""
    head = store.head_commit()
    tree = head.tree if head is not None else None
    rewritten = []
    for rel, before in sorted(originals.items()):
        target = store.workdir / rel
        committed = store.blob_at(tree, rel)
        if committed is None or committed == before:
            continue
        if target.is_file() and target.read_bytes() == before:
            atomic_write(target, committed, store.fsync, store.state_dir / "tmp")
            rewritten.append(rel)
    return rewritten


def new_vault_id() -> str:
    """A fresh vault id."""
    return str(uuid.uuid4())


def _adoption(
    settings: Any, root: Path, files: list[Path], default_type: str | None
) -> tuple[list[Draft], dict[str, bytes]]:
    """Validate every Markdown file of a folder before anything is written."""
    drafts: list[Draft] = []
    raw: dict[str, bytes] = {}
    problems: list[str] = []
    for file in files:
        rel = file.relative_to(root).as_posix()
        if rel in RESERVED_ADOPT or file.name == "index.md":
            problems.append(f"{rel}: the name is reserved for generated catalogs; rename it")
            continue
        if file.suffix not in ENTRY_SUFFIXES:
            raw[rel] = file.read_bytes()  # scanned with the plan, like every file a commit holds
            continue
        try:
            drafts.append(_adopt_one(settings, file.read_bytes(), rel, default_type))
        except InvalidInput as exc:
            problems.append(f"{rel}: {exc}")
    if problems:
        raise InvalidInput(
            f"cannot adopt {root}: {len(problems)} problem(s):\n  " + "\n  ".join(problems)
        )
    return drafts, raw


def _adopt_one(settings: Any, data: bytes, rel: str, default_type: str | None) -> Draft:
    text = decode_text(data, rel)
    fm, body = split_frontmatter(text)
    has_type = fm is not None and parse_yaml_mapping(fm).get("type")
    if has_type and fm is not None:
        draft = finalize(settings, fm, body, rel)
        # Adopted files are committed as they are: keep the body bytes untouched.
        return Draft(draft.frontmatter, draft.meta, body, rel)
    if default_type is None:
        raise InvalidInput("no 'type' in frontmatter (pass --type to add one)")
    return draft_from_markdown(settings, text, {"type": default_type}, Identity(), rel)


def seed_files(settings: Settings, source: Path) -> tuple[list[Draft], dict[str, bytes]]:
    """The entries (validated drafts keeping their paths) and schema files of a seed folder."""
    if not source.is_dir():
        raise NotFound(f"{source} is not a folder")
    drafts: list[Draft] = []
    extra: dict[str, bytes] = {}
    for file in folder_files(source):
        rel = file.relative_to(source).as_posix()
        if is_entry_path(rel):
            text = file.read_bytes()  # existing entries: their types are the vocabulary
            drafts.append(
                draft_from_markdown(settings, text, {}, Identity(), rel, allow_new_type=True)
            )
        elif rel.startswith("ontology/"):
            extra[rel] = file.read_bytes()
    drafts.sort(key=lambda d: (str(d.meta.get("timestamp", "")), d.path or ""))
    return drafts, extra
