"""OKF catalogs (index.md tree) and the log (log.md + log/YYYY-MM.md): pure functions of tree and
history, updated incrementally along the changed paths and regenerated in full for checks.

Entry lines are Obsidian wikilinks from the vault root, ``* [[path|Title]] - description``
(the path keeps its extension, so ``x.md`` and ``x.cqk`` never collide); folder lines stay
relative Markdown links to the folder's ``index.md``. A log line names its event, entry, type,
agent, session, correlation and worm_ref, then the entry's description::

    * 09:00:00Z MEMORY_INGEST [[decisions/2026-01/x.md|X]] (type: decision, agent: a,
      session: s, correlation: c, worm_ref: git:4f0c...) - why we chose X

A commit cannot hold its own sha, so the lines a commit adds say ``worm_ref: pending``; the next
logged commit stamps them with that sha (``log_changes(previous=...)``) and a full regeneration
stamps every commit's lines but the newest logged one's, so the two always agree. Until then
``clawql memory log --session S`` (or ``--correlation``) names the commit. Lines and catalogs in
the earlier Markdown-link format are still read (``parse_log``, ``parse_entry_lines``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import PurePosixPath

from clawql_git.model.entry import Entry
from clawql_git.model.paths import INDEX, LOG

OKF_VERSION = "0.1"
UNLOGGED_EVENTS = frozenset({"MEMORY_CATALOG_FIX"})
PENDING = "pending"  # the worm_ref of a commit's own log lines: its sha does not exist yet
SUMMARY_LIMIT = 200  # characters of the description a log line carries
_MONTH = re.compile(r"^\d{4}-\d{2}$")
_COUNT = re.compile(r"^(\d+) entr(?:y|ies)\.$", re.MULTILINE)
_WIKI_ITEM = re.compile(r"^\* \[\[([^\]|]+)\|[^\]]*\]\]")
_LEGACY_ITEM = re.compile(
    r"^\* \[((?:\\.|[^\]\\])*)\]\(([^)]+)\)(?: \(([^)]*)\))?(?: - (.*))?$"
)  # ``* [Title](file.md) (status) - description``: catalogs written before wikilinks
_LOG_LINE = re.compile(
    r"^\* (\d{2}:\d{2}:\d{2})Z (\S+)(?: \[\[([^\]|]+)\|([^\]]*)\]\])?"
    r" \(((?:[^()\\]|\\.)*)\)(?: - (.*))?$"
)
_LEGACY_LOG_LINE = re.compile(
    r"^\* (\d{2}:\d{2}:\d{2})Z (\S+)(?: \[[^\]]*\]\((?:\.\./)?([^)]+)\))?(?: - (.*))?$"
)
_FACT = re.compile(r"(\w+): ((?:[^\\,]|\\.)*)(?:, |$)")
_FACT_KEYS = ("type", "agent", "session", "correlation", "worm_ref")


def one_line(text: str) -> str:
    """Runs of whitespace (newlines too) as one space, trimmed."""
    return " ".join(text.split())


def link_text(title: str) -> str:
    """A title as the text of a wikilink: one line, with no ``[``, ``]`` or ``|`` to end it."""
    return one_line(title).translate(str.maketrans("[]|", "()-"))


def wikilink(path: str, title: str) -> str:
    """``[[path|Title]]``, the path from the vault root (Obsidian resolves it from anywhere)."""
    return f"[[{path}|{link_text(title) or PurePosixPath(path).stem}]]"


def _item_line(path: str, title: str, note: str, tail: str) -> str:
    note_part = f" ({one_line(note)})" if one_line(note) else ""
    tail_part = f" - {one_line(tail)}" if one_line(tail) else ""
    return f"* {wikilink(path, title)}{note_part}{tail_part}"


def entry_line(path: str, entry: Entry) -> str:
    """The catalog line of one entry: ``* [[path|Title]] (status) - description``; the status
    only when it is not ``current``."""
    status = "" if entry.status == "current" else entry.status
    return _item_line(path, entry.title, status, entry.description)


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
    """A line of the root catalog's Recent section: ``* [[path|Title]] (type) - description``."""
    return _item_line(path, entry.title, entry.type, entry.description)


def parse_recent_lines(text: str) -> dict[str, str]:
    """path -> line for the Recent section of a root catalog. Lines of the earlier format are
    left out (they lack the description), so the caller renders them afresh."""
    section = text.split("\n## Recent\n", 1)
    out: dict[str, str] = {}
    for line in section[1].splitlines() if len(section) == 2 else ():
        match = _WIKI_ITEM.match(line)
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


def parse_entry_lines(text: str, folder: str = "") -> dict[str, str]:
    """filename -> line for the entry lines in a folder catalog's Entries section. A line of the
    earlier format (``* [Title](file.md) - description``) comes back as the wikilink line the
    same entry renders to now, so an incremental update never mixes the two."""
    out: dict[str, str] = {}
    section = text.split("\n## Entries\n", 1)
    if len(section) < 2:
        return out
    for line in section[1].splitlines():
        wiki = _WIKI_ITEM.match(line)
        if wiki:
            out[PurePosixPath(wiki.group(1)).name] = line
            continue
        legacy = _LEGACY_ITEM.match(line)
        if legacy:
            title, name, status, description = legacy.groups()
            path = f"{folder}/{name}" if folder else name
            title = re.sub(r"\\(.)", r"\1", title)
            out[name] = _item_line(path, title, status or "", description or "")
    return out


# ---------------------------------------------------------------- the log


@dataclass(frozen=True)
class LogEvent:
    """One line of the log: an event on (at most) one entry. ``worm_ref`` is ``git:<sha>``,
    ``PENDING`` for the lines of the newest logged commit, or empty in a line of the earlier
    format."""

    when: datetime
    event: str
    path: str = ""
    entry_type: str = ""
    agent: str = ""
    correlation: str = ""
    session: str = ""
    summary: str = ""
    title: str = ""
    worm_ref: str = ""

    @property
    def month(self) -> str:
        return self.when.strftime("%Y-%m")

    def render(self) -> str:
        """The log line (the same in log.md and in log/YYYY-MM.md)."""
        link = f" {wikilink(self.path, self.title)}" if self.path else ""
        values = (self.entry_type, self.agent, self.session, self.correlation, self.worm_ref)
        facts = ", ".join(
            f"{k}: {_escape(v)}" for k, v in zip(_FACT_KEYS, values, strict=True) if one_line(v)
        )
        summary = _summary(self.summary)
        tail = f" - {summary}" if summary else ""
        return f"* {self.when.strftime('%H:%M:%S')}Z {self.event}{link} ({facts}){tail}"

    def described(self, entry: Entry | None) -> LogEvent:
        """With the entry's title and description (the entry as this commit wrote it)."""
        if entry is None:
            return self
        return replace(self, title=entry.title, summary=entry.description)

    def stamped(self, sha: str) -> LogEvent:
        """A pending line with its commit's sha, once that commit exists."""
        return replace(self, worm_ref=f"git:{sha}") if self.worm_ref == PENDING else self


def _escape(value: str) -> str:
    return re.sub(r"([\\,()])", r"\\\1", one_line(value))


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _summary(text: str) -> str:
    """The description on one line, cut to ``SUMMARY_LIMIT`` (cutting a cut one is a no-op)."""
    line = one_line(text)
    return line if len(line) <= SUMMARY_LIMIT else line[: SUMMARY_LIMIT - 1].rstrip() + "…"


def parse_log_line(line: str, day: str) -> LogEvent | None:
    """One log line of ``day`` (``YYYY-MM-DD``), in the current or the earlier format."""
    match = _LOG_LINE.match(line)
    if match:
        clock, event, path, title, facts, summary = match.groups()
        found = {m.group(1): _unescape(m.group(2)) for m in _FACT.finditer(facts)}
        kinds = [found.get(k, "") for k in _FACT_KEYS]
        when = datetime.fromisoformat(f"{day}T{clock}+00:00")
        return LogEvent(
            when, event, path or "", kinds[0], kinds[1], kinds[3], kinds[2],
            summary or "", title or "", kinds[4],
        )  # fmt: skip
    legacy = _LEGACY_LOG_LINE.match(line)
    if legacy is None:
        return None
    clock, event, path, tail = legacy.groups()
    old = dict(_fact(f) for f in (tail or "").split(", ") if ": " in f)
    when = datetime.fromisoformat(f"{day}T{clock}+00:00")
    return LogEvent(
        when, event, path or "", old.get("type", ""), old.get("agent", ""),
        old.get("correlation", ""),
    )  # fmt: skip


def parse_log(text: str) -> list[LogEvent]:
    """Events of a log file, newest first, as they were rendered."""
    events: list[LogEvent] = []
    day = ""
    for line in text.splitlines():
        if line.startswith("## "):
            day = line[3:].strip()
            continue
        event = parse_log_line(line, day) if day else None
        if event is not None:
            events.append(event)
    return events


def _fact(text: str) -> tuple[str, str]:
    key, _, value = text.partition(": ")
    return key, value


def render_log(events: list[LogEvent], title: str) -> str:
    """A log file: ``## YYYY-MM-DD`` headings newest first, one line per event."""
    lines = [f"# {title}", ""]
    day = ""
    for event in events:
        heading = event.when.strftime("%Y-%m-%d")
        if heading != day:
            lines += ([""] if day else []) + [f"## {heading}", ""]
            day = heading
        lines.append(event.render())
    return "\n".join(lines) + "\n"


def kept_in_log(n: int, page: int) -> int:
    """How many of the current month's ``n`` events stay in log.md (older ones roll out in
    blocks of ``page`` so log.md never exceeds 2*page lines)."""
    return n if n < page else page + n % page


def log_changes(
    old_log: str,
    archive_text: Callable[[str], str],
    new_events: list[LogEvent],
    page: int,
    previous: str = "",
) -> dict[str, str]:
    """Files to write so the log holds ``new_events`` (newest first) on top of ``old_log``.
    ``previous`` is the sha of the last logged commit, whose pending lines it stamps."""
    if not new_events:
        return {}
    out: dict[str, str] = {}
    current = parse_log(old_log)
    if previous and any(e.worm_ref == PENDING for e in current):
        if all(e.worm_ref == PENDING for e in current):  # its lines may have rolled out too
            out.update(_stamp_page(archive_text, current[0].month, previous))
        current = [e.stamped(previous) for e in current]
        old_log = render_log(current, "Log")
    fast = _prepend_without_roll(old_log, new_events, page)
    if fast is not None:
        return {**out, LOG: fast}
    month = new_events[0].month
    rolled = [e for e in current if e.month != month]
    kept = [e for e in current if e.month == month]
    merged = new_events + kept
    keep = kept_in_log(len(merged), page)
    rolled = merged[keep:] + rolled
    out[LOG] = render_log(merged[:keep], "Log")
    for m in sorted({e.month for e in rolled}):
        moving = [e for e in rolled if e.month == m]
        name = f"log/{m}.md"
        older = parse_log(out[name] if name in out else archive_text(m))
        out[name] = render_log(moving + older, f"Log {m}")
    return out


def _stamp_page(archive_text: Callable[[str], str], month: str, sha: str) -> dict[str, str]:
    """The month page with the pending lines stamped, when it has any."""
    events = parse_log(archive_text(month))
    if not any(e.worm_ref == PENDING for e in events):
        return {}
    return {f"log/{month}.md": render_log([e.stamped(sha) for e in events], f"Log {month}")}


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
        out[f"log/{m}.md"] = render_log([e for e in older if e.month == m], f"Log {m}")
    return out


def is_logged(trailers: Mapping[str, object]) -> bool:
    """Whether a commit with these trailers has lines in the log."""
    event = str(trailers.get("Clawql-Event") or "")
    return bool(event) and event not in UNLOGGED_EVENTS


def events_from_trailers(when: datetime, trailers: Mapping[str, object]) -> list[LogEvent]:
    """The log lines one engine commit contributes (one per Entry-Path), without the entries'
    descriptions and the worm_ref (the caller knows those: ``described``, ``stamped``)."""
    if not is_logged(trailers):
        return []
    event = str(trailers.get("Clawql-Event"))
    paths = trailers.get("Entry-Path") or []
    listed = [paths] if isinstance(paths, str) else list(paths)  # type: ignore[call-overload]
    path_list = [p for p in listed if p != "none"]  # a commit that wrote no entry
    common = {
        "entry_type": _first(trailers.get("Entry-Type")),
        "agent": _first(trailers.get("Agent-Id")),
        "correlation": _first(trailers.get("Correlation-Id")),
        "session": _first(trailers.get("Session-Id")),
    }
    if not path_list:
        return [LogEvent(when, event, **common)]
    return [LogEvent(when, event, str(p), **common) for p in path_list]


def _first(value: object) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    text = str(value or "")
    return "" if text == "none" else text
