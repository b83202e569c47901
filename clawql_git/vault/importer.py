"""Importing a folder of Markdown: validate every file first, then one commit each (or one)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from clawql_git.config import Settings
from clawql_git.errors import InvalidInput
from clawql_git.model.drafts import Draft, draft_from_markdown
from clawql_git.model.entry import (
    ENTRY_SUFFIXES,
    STATUSES,
    decode_text,
    edit_frontmatter,
    parse_yaml_mapping,
    render_document,
    split_frontmatter,
)
from clawql_git.model.identity import Identity


def folder_files(root: Path) -> Iterator[Path]:
    """The files of a folder a user hands in (adopt, import, seed), sorted, hidden folders and
    files left out. A file that is a symbolic link is refused, naming it: reading it would
    commit whatever it points at (``creds.txt -> ~/.aws/credentials``), which history cannot
    forget. Linked folders are not walked into."""
    links = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            path = Path(dirpath) / name
            if path.is_symlink():
                links.append(f"{path.relative_to(root).as_posix()} -> {os.readlink(path)}")
            else:
                yield path
    if links:
        raise InvalidInput(
            f"{root} holds symbolic links; nothing is taken in from a link (copy the file in, "
            "or remove the link):\n  " + "\n  ".join(links)
        )


def markdown_files(root: Path) -> Iterator[Path]:
    """Markdown files under ``root`` (see ``folder_files``)."""
    for path in folder_files(root):
        if path.suffix in ENTRY_SUFFIXES:
            yield path


def import_drafts(settings: Settings, root: Path, entry_type: str | None) -> list[Draft]:
    """Validated drafts for every file; any invalid file stops the import before a write."""
    drafts: list[Draft] = []
    problems: list[str] = []
    for file in markdown_files(root):
        rel = file.relative_to(root).as_posix()
        try:
            drafts.append(_draft(settings, file.read_bytes(), rel, entry_type))
        except InvalidInput as exc:
            problems.append(f"{rel}: {exc}")
    if problems:
        raise InvalidInput(
            f"nothing imported: {len(problems)} of {len(problems) + len(drafts)} files are "
            "invalid:\n  " + "\n  ".join(problems)
        )
    if not drafts:
        raise InvalidInput(f"no Markdown files under {root}")
    return drafts


def _draft(settings: Settings, data: bytes, rel: str, entry_type: str | None) -> Draft:
    text = decode_text(data, rel)
    fm, body = split_frontmatter(text)
    meta = parse_yaml_mapping(fm) if fm is not None else {}
    overrides: dict[str, object] = {"source_path": rel}
    if not meta.get("type"):
        if entry_type is None:
            raise InvalidInput("no 'type' in frontmatter (pass --type)")
        overrides["type"] = entry_type
    status = meta.get("status")
    if fm is not None and status is not None and status not in STATUSES:
        # A foreign lifecycle ("accepted", "superseded by ADR-0057") is kept, under its own key.
        fm = edit_frontmatter(fm, {"status": None, "source_status": status})
        text = render_document(fm, body)
    title = PurePosixPath(rel).stem.replace("-", " ").replace("_", " ")
    return draft_from_markdown(settings, text, overrides, Identity(), None, title)
