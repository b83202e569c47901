"""OKF catalogs (index.md tree) and the log (log.md + log/YYYY-MM.md): pure functions of tree and
history, updated incrementally along the changed paths and regenerated in full for checks."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath

from clawql_git.model.entry import Entry
from clawql_git.model.paths import INDEX, LOG

OKF_VERSION = "0.1"
UNLOGGED_EVENTS = frozenset({"MEMORY_CATALOG_FIX"})
_MONTH = re.compile(r"^\d{4}-\d{2}$")
_COUNT = re.compile(r"^(\d+) entr(?:y|ies)\.$", re.MULTILINE)
_ITEM_TARGET = re.compile(r"^\* \[(?:\\.|[^\]\\])*\]\(([^)]+)\)")
_LOG_LINE = re.compile(
    r"^\* (\d{2}:\d{2}:\d{2})Z (\S+)(?: \[[^\]]*\]\((?:\.\./)?([^)]+)\))?(?: - (.*))?$"
)


def escape_title(title: str) -> str:
    """Escape a title for use as Markdown link text on one line."""
    one_line = " ".join(title.split())
    return re.sub(r"([\\\[\]])", r"\\\1", one_line)


def entry_line(filename: str, entry: Entry) -> str:
    """The catalog line of one entry: ``* [Title](file.md) - description``."""
    description = " ".join(entry.description.split())
    status = "" if entry.status == "current" else f" ({entry.status})"
    tail = f" - {description}" if description else ""
    return f"* [{escape_title(entry.title)}]({filename}){status}{tail}"


def _count_word(n: int) -> str:
    return f"{n} entry." if n == 1 else f"{n} entries."


def _folder_order(name: str) -> tuple[int, str]:
    if _MONTH.match(name):
        return (0, "".join(chr(0x10FFFF - ord(c)) for c in name))  # months newest first
    return (1, name)


@dataclass(frozen=True)
class FolderListing:
    """What a folder catalog lists: subfolders with recursive counts and direct entry lines."""

    folder: str
    subfolders: tuple[tuple[str, int], ...]
    entries: tuple[tuple[str, str], ...]  # (filename, rendered line)

    @property
    def count(self) -> int:
        return sum(n for _, n in self.subfolders) + len(self.entries)


def render_folder(listing: FolderListing) -> str:
    """Render a folder's index.md."""
    lines = [f"# {listing.folder}", "", _count_word(listing.count), ""]
    if listing.subfolders:
        lines += ["## Folders", ""]
        for name, n in sorted(listing.subfolders, key=lambda s: _folder_order(s[0])):
            lines.append(f"* [{name}]({name}/{INDEX}) - {_count_word(n)[:-1]}")
        lines.append("")
    if listing.entries:
        lines += ["## Entries", ""]
        lines += [line for _, line in sorted(listing.entries)]
        lines.append("")
    return "\n".join(lines)


def recent_line(path: str, entry: Entry) -> str:
    """A line of the root catalog's Recent section."""
    return f"* [{escape_title(entry.title)}]({path}) - {entry.type}"


def parse_recent_lines(text: str) -> dict[str, str]:
    """path -> line for the Recent section of a root catalog."""
    section = text.split("\n## Recent\n", 1)
    out: dict[str, str] = {}
    for line in section[1].splitlines() if len(section) == 2 else ():
        match = _ITEM_TARGET.match(line)
        if match:
            out[match.group(1)] = line
    return out


def render_root(
    categories: Iterable[tuple[str, int]],
    entries: Iterable[tuple[str, str]],
    recent: Iterable[str],
) -> str:
    """Render the root index.md: categories with counts, root entries, most recent entries."""
    cats = sorted(categories)
    roots = sorted(entries)
    total = sum(n for _, n in cats) + len(roots)
    lines = [
        "---",
        f'okf_version: "{OKF_VERSION}"',
        "---",
        "# Memory index",
        "",
        _count_word(total),
    ]
    lines += ["", "## Categories", ""]
    lines += [f"* [{c}]({c}/{INDEX}) - {_count_word(n)[:-1]}" for c, n in cats] or ["(none yet)"]
    if roots:
        lines += ["", "## Entries", "", *[line for _, line in roots]]
    lines += ["", "## Recent", ""]
    recent_lines = list(recent)
    lines += recent_lines or ["(none yet)"]
    return "\n".join(lines) + "\n"


def parse_count(text: str) -> int:
    """The entry count a catalog states about its folder."""
    match = _COUNT.search(text)
    return int(match.group(1)) if match else 0


_FOLDER_LINE = re.compile(r"^\* \[([^\]]+)\]\(\1/index\.md\) - (\d+) entr(?:y|ies)$", re.MULTILINE)


def parse_folder_counts(text: str) -> dict[str, int]:
    """name -> count for the subfolder (or category) lines of a catalog."""
    return {m.group(1): int(m.group(2)) for m in _FOLDER_LINE.finditer(text)}


def parse_entry_lines(text: str) -> dict[str, str]:
    """filename -> line for the entry lines in a folder catalog's Entries section."""
    out: dict[str, str] = {}
    section = text.split("\n## Entries\n", 1)
    if len(section) < 2:
        return out
    for line in section[1].splitlines():
        match = _ITEM_TARGET.match(line)
        if match:
            out[match.group(1)] = line
    return out


# ---------------------------------------------------------------- the log


@dataclass(frozen=True)
class LogEvent:
    """One line of the log: an event on (at most) one entry."""

    when: datetime
    event: str
    path: str = ""
    entry_type: str = ""
    agent: str = ""
    correlation: str = ""

    @property
    def month(self) -> str:
        return self.when.strftime("%Y-%m")

    def render(self, prefix: str = "") -> str:
        """The log line; ``prefix`` makes links relative to the log file's folder."""
        link = f" [{PurePosixPath(self.path).stem}]({prefix}{self.path})" if self.path else ""
        facts = [f"type: {self.entry_type}" if self.entry_type else ""]
        facts += [f"agent: {self.agent}" if self.agent else ""]
        facts += [f"correlation: {self.correlation}" if self.correlation else ""]
        tail = ", ".join(f for f in facts if f)
        return f"* {self.when.strftime('%H:%M:%S')}Z {self.event}{link}" + (
            f" - {tail}" if tail else ""
        )


def parse_log(text: str) -> list[LogEvent]:
    """Events of a log file, newest first, as they were rendered."""
    events: list[LogEvent] = []
    day = ""
    for line in text.splitlines():
        if line.startswith("## "):
            day = line[3:].strip()
            continue
        match = _LOG_LINE.match(line)
        if match and day:
            when = datetime.fromisoformat(f"{day}T{match.group(1)}+00:00")
            facts = dict(_fact(f) for f in (match.group(4) or "").split(", ") if ": " in f)
            events.append(
                LogEvent(
                    when,
                    match.group(2),
                    match.group(3) or "",
                    facts.get("type", ""),
                    facts.get("agent", ""),
                    facts.get("correlation", ""),
                )
            )
    return events


def _fact(text: str) -> tuple[str, str]:
    key, _, value = text.partition(": ")
    return key, value


def render_log(events: list[LogEvent], title: str, prefix: str = "") -> str:
    """A log file: ``## YYYY-MM-DD`` headings newest first, one line per event."""
    lines = [f"# {title}", ""]
    day = ""
    for event in events:
        heading = event.when.strftime("%Y-%m-%d")
        if heading != day:
            lines += ([""] if day else []) + [f"## {heading}", ""]
            day = heading
        lines.append(event.render(prefix))
    return "\n".join(lines) + "\n"


def kept_in_log(n: int, page: int) -> int:
    """How many of the current month's ``n`` events stay in log.md (older ones roll out in
    blocks of ``page`` so log.md never exceeds 2*page lines)."""
    return n if n < page else page + n % page


def log_changes(
    old_log: str, archive_text: Callable[[str], str], new_events: list[LogEvent], page: int
) -> dict[str, str]:
    """Files to write so the log holds ``new_events`` (newest first) on top of ``old_log``."""
    if not new_events:
        return {}
    fast = _prepend_without_roll(old_log, new_events, page)
    if fast is not None:
        return {LOG: fast}
    current = parse_log(old_log)
    month = new_events[0].month
    rolled = [e for e in current if e.month != month]
    kept = [e for e in current if e.month == month]
    merged = new_events + kept
    keep = kept_in_log(len(merged), page)
    rolled = merged[keep:] + rolled
    out = {LOG: render_log(merged[:keep], "Log")}
    for m in sorted({e.month for e in rolled}):
        moving = [e for e in rolled if e.month == m]
        older = parse_log(archive_text(m))
        out[f"log/{m}.md"] = render_log(moving + older, f"Log {m}", "../")
    return out


def _prepend_without_roll(old_log: str, new_events: list[LogEvent], page: int) -> str | None:
    """The common case done as text: same month, no block rolls out. None when it does not
    apply (the caller then re-renders). Produces exactly what ``render_log`` would."""
    head = "# Log\n\n"
    if not old_log.startswith(head):
        return None
    first = old_log[len(head) :].split("\n", 1)[0]
    day = new_events[0].when.strftime("%Y-%m-%d")
    count = old_log.count("\n* ") + len(new_events)
    if not first.startswith("## ") or first[3:10] != new_events[0].month or count >= 2 * page:
        return None
    if any(e.when.strftime("%Y-%m-%d") != day for e in new_events):
        return None
    lines = "".join(e.render() + "\n" for e in new_events)
    rest = old_log[len(head) :]
    if first[3:] == day:
        heading = f"## {day}\n\n"
        return head + heading + lines + rest[len(heading) :]
    return head + f"## {day}\n\n" + lines + "\n" + rest


def full_log(events_oldest_first: list[LogEvent], page: int) -> dict[str, str]:
    """The whole log regenerated from every event of history."""
    if not events_oldest_first:
        return {LOG: render_log([], "Log")}
    newest = list(reversed(events_oldest_first))
    month = newest[0].month
    current = [e for e in newest if e.month == month]
    keep = kept_in_log(len(current), page)
    out = {LOG: render_log(current[:keep], "Log")}
    older = current[keep:] + [e for e in newest if e.month != month]
    for m in sorted({e.month for e in older}):
        out[f"log/{m}.md"] = render_log([e for e in older if e.month == m], f"Log {m}", "../")
    return out


def events_from_trailers(when: datetime, trailers: Mapping[str, object]) -> list[LogEvent]:
    """The log lines one engine commit contributes (one per Entry-Path)."""
    event = str(trailers.get("Clawql-Event") or "")
    if not event or event in UNLOGGED_EVENTS:
        return []
    paths = trailers.get("Entry-Path") or []
    listed = [paths] if isinstance(paths, str) else list(paths)  # type: ignore[call-overload]
    path_list = [p for p in listed if p != "none"]  # a commit that wrote no entry
    common = {
        "entry_type": _first(trailers.get("Entry-Type")),
        "agent": _first(trailers.get("Agent-Id")),
        "correlation": _first(trailers.get("Correlation-Id")),
    }
    if not path_list:
        return [LogEvent(when, event, **common)]
    return [LogEvent(when, event, str(p), **common) for p in path_list]


def _first(value: object) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    text = str(value or "")
    return "" if text == "none" else text
