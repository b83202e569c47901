"""Creating vaults: init, adopting an Obsidian folder, seeding from a folder of entries, hooks."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.config import VAULT_TOML, resolve_settings
from clawql_git.errors import InvalidInput, NotFound, VaultStateError
from clawql_git.gitstore import GitStore
from clawql_git.model.drafts import Draft, draft_from_markdown, finalize
from clawql_git.model.entry import ENTRY_SUFFIXES, decode_text, split_frontmatter

if TYPE_CHECKING:
    from clawql_git.model.identity import Identity
    from clawql_git.vault.facade import Vault, WriteResult

HOOK_NAMES = ("post-commit", "post-checkout", "post-merge", "post-rewrite")
RESERVED_ADOPT = ("index.md", "log.md")
Progress = Callable[[int, int, str], None]


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


def _visible_files(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath) / name


def create_vault(
    cls: type[Vault],
    path: Path,
    adopt: bool,
    default_type: str | None,
    ident: Identity,
    flags: dict[str, Any],
) -> Vault:
    """Create a vault at ``path`` (see ``Vault.init``)."""
    path = path.resolve()
    if (path / VAULT_TOML).is_file() and (path / ".git").exists():
        vault = cls.open(path, **flags)
        install_hooks(vault.store)
        return vault
    existing = list(_visible_files(path)) if path.is_dir() else []
    if existing and not adopt:
        raise VaultStateError(
            f"{path} is not empty and not a vault ({len(existing)} files); "
            "pass --adopt to take in its Markdown, or choose an empty folder"
        )
    settings = resolve_settings(None, flags)
    drafts, raw = _adoption(settings, path, existing, default_type) if adopt else ([], {})
    path.mkdir(parents=True, exist_ok=True)
    store = GitStore.open(path) if (path / ".git").exists() else GitStore.init(path)
    vault = cls(store, resolve_settings(path, flags), bool(flags.get("eager_index", True)))
    _first_commit(vault, drafts, raw, ident)
    install_hooks(store)
    vault.close()  # the git index follows the first commit, so `git status` starts clean
    return vault


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
            raw[rel] = file.read_bytes()
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
    from clawql_git.model.entry import parse_yaml_mapping
    from clawql_git.model.identity import Identity

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


def _first_commit(
    vault: Vault, drafts: list[Draft], raw: dict[str, bytes], ident: Identity
) -> WriteResult:
    from clawql_git.model.entry import Entry
    from clawql_git.vault.facade import _Pending, new_vault_id

    files = {VAULT_TOML: vault_toml(new_vault_id())}
    files[".gitattributes"] = _gitattributes()
    files.update(raw)
    changes = {d.path or "": Entry(d.path or "", d.frontmatter, d.meta, d.body) for d in drafts}
    pending = _Pending("MEMORY_INIT", dict(changes), "initialise vault", raw_files=files)
    from clawql_git.gitstore.checkout import CheckoutSync

    CheckoutSync(vault.store).write_marks({"worktree": "", "index": ""})
    return vault._write(lambda tree: pending, vault._identity(ident))


def _gitattributes() -> bytes:
    from clawql_git.vault.facade import GITATTRIBUTES

    return GITATTRIBUTES.encode()


def seed_from(
    vault: Vault, source: Path, ident: Identity, progress: Progress | None = None
) -> list[WriteResult]:
    """Ingest every entry of a folder laid out like a vault, one commit per entry, oldest first,
    keeping each entry's path; schema files (ontology/) come along in one commit."""
    from clawql_git.vault.facade import _Pending

    if not source.is_dir():
        raise NotFound(f"{source} is not a folder")
    entries, extra = _seed_files(vault, source)
    head = vault.store.head_commit()
    tree = head.tree if head is not None else None
    entries = [d for d in entries if vault.store.blob_at(tree, d.path or "") is None]
    extra = {p: b for p, b in extra.items() if vault.store.blob_at(tree, p) != b}
    if extra:
        pending = _Pending("MEMORY_ONTOLOGY", {}, f"add {len(extra)} schema files", raw_files=extra)
        vault._write(lambda tree: pending, vault._identity(ident))
    results = []
    for n, draft in enumerate(entries, 1):
        results += vault.ingest_many([draft], ident)
        if progress:
            progress(n, len(entries), draft.path or "")
    return results


def _seed_files(vault: Vault, source: Path) -> tuple[list[Draft], dict[str, bytes]]:
    from clawql_git.model.identity import Identity
    from clawql_git.model.paths import is_entry_path

    drafts: list[Draft] = []
    extra: dict[str, bytes] = {}
    for file in _visible_files(source):
        rel = file.relative_to(source).as_posix()
        if is_entry_path(rel):
            drafts.append(
                draft_from_markdown(vault.settings, file.read_bytes(), {}, Identity(), rel)
            )
        elif rel.startswith("ontology/"):
            extra[rel] = file.read_bytes()
    drafts.sort(key=lambda d: (str(d.meta.get("timestamp", "")), d.path or ""))
    return drafts, extra
