"""Protected team remotes: a bare repository that refuses rewrites, deletions, invalid entries,
secrets (in files, file names, commit and tag messages, authors), paths a checkout cannot hold,
symlinks and submodules, refs outside a vault's namespaces and, by the policy committed on the
branch it protects (HEAD), unsigned commits and unreviewed changes to that branch. The checks
run in its pre-receive hook with the same validation as ingest, and fail closed."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from clawql_git.catalog.render import parse_log_line
from clawql_git.config import VAULT_TOML, Settings
from clawql_git.errors import ClawqlError, InvalidInput, SecretDetected, VaultStateError
from clawql_git.gitstore import AUDIT_REF, ZERO, Commit, Repo, Tree, TreeEntry, parse_trailers
from clawql_git.model.drafts import finalize
from clawql_git.model.entry import check_frontmatter_text, decode_text, split_frontmatter
from clawql_git.model.paths import INDEX, LOG, case_collision, is_entry_path, portable_path_problem
from clawql_git.model.secrets import redact, scan
from clawql_git.ontology import change_problems
from clawql_git.ontology.schema import is_schema_path
from clawql_git.vault.routing import ReviewPolicy

REMOTE_CONFIG = {
    "receive.denyNonFastForwards": "true",
    "receive.denyDeletes": "true",
    "receive.fsckObjects": "true",
}
AUDITS_PREFIX = "refs/clawql/audits/"  # every clone's audit chain (team/sharing.py pushes it)
REF_PREFIXES = ("refs/heads/", "refs/tags/", AUDITS_PREFIX)
PROPOSAL_PREFIX = "proposals/"
REVIEW_EVENT = "MEMORY_REVIEW"
LOG_PAGE = re.compile(r"^log/(\d{4}-\d{2})\.md$")
MAX_TAG_DEPTH = 8  # a tag of a tag of ...: git itself allows any depth; nobody needs more
STANDARD_HEADERS = (b"tree ", b"parent ", b"author ", b"committer ", b"object ", b"type ", b"tag ")
FAIL_CLOSED = "the push is refused (the protected remote fails closed)"


@dataclass(frozen=True)
class RefUpdate:
    """One line of pre-receive input."""

    old: str
    new: str
    ref: str


def protect_remote(path: Path) -> list[str]:
    """Configure a bare repository to refuse rewrites and install the pre-receive hook."""
    from clawql_git.vault.setup import clawql_command, hooks_source

    try:
        repo = Repo.open_bare(path)
    except VaultStateError as exc:
        raise InvalidInput(
            f"{path} has a work tree; protect the bare repository teams push to"
        ) from exc
    for key, value in REMOTE_CONFIG.items():
        repo.config_set(key, value)
    repo.config_set("clawql.command", clawql_command())
    hook = repo.gitdir / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    shutil.copyfile(hooks_source() / "pre-receive", hook)
    hook.chmod(0o755)
    return [*(f"{k}={v}" for k, v in REMOTE_CONFIG.items()), f"hook {hook}"]


def parse_updates(lines: Iterable[str]) -> list[RefUpdate]:
    """``<old> <new> <ref>`` lines from git; a line of any other shape is refused."""
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) != 3:
            if parts:
                raise InvalidInput(
                    f"pre-receive input line {line.strip()[:80]!r} is not <old> <new> <ref>"
                )
            continue
        out.append(RefUpdate(*parts))
    return out


# ---------------------------------------------------------------- policy


@dataclass(frozen=True)
class Policy:
    """What the protected branch's committed settings ask of every push (read from that
    branch's tip before the push: a push cannot lift it)."""

    require_signed: bool = False
    allowed_signers: bytes = b""
    settings: Settings = field(default_factory=Settings)  # the committed [settings]
    review: ReviewPolicy = field(default_factory=ReviewPolicy)
    branch: str = "refs/heads/main"  # the protected branch (the bare repository's HEAD)


def protected_branch(repo: Repo) -> str:
    """The branch the remote protects: the one its HEAD names (``main`` when HEAD names an
    unborn branch and ``main`` exists)."""
    head = repo.head_target() or "refs/heads/main"
    if repo.ref_commit(head) is None and repo.ref_commit("refs/heads/main") is not None:
        return "refs/heads/main"
    return head


def branch_policy(repo: Repo, branch: str) -> Policy:
    """The policy committed at the tip of ``branch`` (nothing required when it is unborn)."""
    commit = repo.ref_commit(branch)
    if commit is None:
        return Policy(branch=branch)
    data = _toml(repo.blob_at(commit.tree, VAULT_TOML))
    if isinstance(data, str):
        raise InvalidInput(
            f"{branch}'s {VAULT_TOML} does not parse ({data}), so its policy is unknown; "
            "an administrator must repair it on the remote"
        )
    pol = data.get("policy", {})
    pol = pol if isinstance(pol, dict) else {}
    signers = b""
    if pol.get("allowed_signers"):
        signers = repo.blob_at(commit.tree, str(pol["allowed_signers"])) or b""
    table = data.get("settings", {})
    settings = Settings().with_overrides(table if isinstance(table, dict) else {})
    review = ReviewPolicy.at(repo, commit)
    return Policy(bool(pol.get("require_signed")), signers, settings, review, branch)


def _toml(data: bytes | None) -> dict[str, object] | str:
    """The parsed settings file, or why it does not parse."""
    if data is None:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        return "not UTF-8"
    except tomllib.TOMLDecodeError as exc:
        return f"not valid TOML: {exc}"


def _policy_state(repo: Repo, commit: Commit | None) -> tuple[object, bytes | None]:
    """The ``[policy]`` table of a commit and the bytes of the allowed-signers file it names:
    swapping the keys is as much a policy change as editing the table."""
    tree = commit.tree if commit else None
    data = _toml(repo.blob_at(tree, VAULT_TOML))
    table = data.get("policy", {}) if isinstance(data, dict) else data
    named = table.get("allowed_signers") if isinstance(table, dict) else None
    return table, repo.blob_at(tree, str(named)) if named else None


# ---------------------------------------------------------------- the push


def check_push(repo: Repo, updates: list[RefUpdate]) -> list[str]:
    """Every reason to refuse the push (empty: accept). The policy of every ref, new or not,
    is the protected branch's as it is now, never one the push brings."""
    policy = branch_policy(repo, protected_branch(repo))
    problems: list[str] = []
    for update in updates:
        try:
            problems += _check_update(repo, update, policy)
        except Exception as exc:  # anything unexpected refuses, naming its ref
            ref = redact(update.ref)
            problems.append(f"{ref}: the checks failed ({_failure(exc)}); {FAIL_CLOSED}")
    return problems


def pre_receive_problems(path: Path, stdin: Iterable[str]) -> list[str]:
    """What the pre-receive hook refuses (empty: the push may land). Never raises: an
    unexpected failure is itself a reason to refuse."""
    try:
        return check_push(Repo.open_receiving(path), parse_updates(stdin))
    except Exception as exc:  # the hook fails closed, without a traceback
        return [f"the checks failed ({_failure(exc)}); {FAIL_CLOSED}"]


def _failure(exc: Exception) -> str:
    text = exc.message if isinstance(exc, ClawqlError) else f"{type(exc).__name__}: {exc}"
    return redact(" ".join(text.split()))[:300]


def _check_update(repo: Repo, update: RefUpdate, policy: Policy) -> list[str]:
    ref = update.ref
    if scan(ref):
        return [f"{redact(ref)}: the ref name contains a secret (history cannot forget it)"]
    if update.new == ZERO:
        return [f"{ref}: deleting refs is refused on a protected vault"]
    if not ref.startswith(REF_PREFIXES) and ref != AUDIT_REF:
        return [
            f"{ref}: git:{update.new} refs outside refs/heads/, refs/tags/ and "
            f"{AUDITS_PREFIX} are not part of a vault (notes, pull and other refs are refused)"
        ]
    tip, problems = _peel(repo, ref, update.new)
    if tip is None:
        return problems
    if ref == policy.branch:  # under the current policy, whatever other refs already hold
        commits = repo.commits_since(tip, update.old if update.old != ZERO else None)
    else:
        commits = repo.new_commits(str(tip.id))
    for commit in commits:
        problems += commit_problems(repo, commit, ref, policy)
    if ref == AUDIT_REF or ref.startswith(AUDITS_PREFIX):
        problems += [
            f"{ref}: git:{c.id} is a merge; an audit chain is linear (one parent per event)"
            for c in commits
            if len(c.parents) > 1
        ]
    if ref == policy.branch and policy.review.required:
        problems += review_problems(repo, update, tip, policy)
    return problems


def _peel(repo: Repo, ref: str, sha: str) -> tuple[Commit | None, list[str]]:
    """The commit a pushed object names (tags followed, their messages and taggers scanned),
    or None with the reason when it names no commit."""
    problems: list[str] = []
    for _ in range(MAX_TAG_DEPTH):
        kind = repo.object_kind(sha)
        if kind == "commit":
            return repo.commit_of(sha), problems
        tag = repo.tag_data(sha) if kind == "tag" else None
        if tag is None:
            what = kind or "missing object"
            return None, [*problems, f"{ref}: git:{sha} is a {what}; a ref must name a commit"]
        where = f"{ref}: tag git:{sha}"
        problems += _secret_problems(where, "its message", tag.message)
        problems += _secret_problems(where, "its tagger", tag.tagger)
        problems += _secret_problems(where, "its name", tag.name.encode())
        problems += _secret_problems(where, "a tag header", _extra_headers(repo, sha))
        sha = tag.target
    return None, [*problems, f"{ref}: git:{sha} is a chain of more than {MAX_TAG_DEPTH} tags"]


# ---------------------------------------------------------------- one commit


def commit_problems(repo: Repo, commit: Commit, ref: str, policy: Policy) -> list[str]:
    """What is wrong with one new commit: signature, metadata secrets, and every file it adds
    or changes (against its first parent)."""
    where = f"{ref}: git:{commit.id}"
    problems = []
    if policy.require_signed and not signer(repo, commit, policy.allowed_signers):
        problems.append(f"{where} is not signed by an allowed signer (the vault requires it)")
    problems += _secret_problems(where, "the commit message", commit.raw_message)
    for role, sig in (("author", commit.author), ("committer", commit.committer)):
        problems += _secret_problems(where, f"the {role}", sig.raw_name + b" " + sig.raw_email)
    problems += _secret_problems(where, "a commit header", _extra_headers(repo, str(commit.id)))
    parent = commit.parents[0].tree if commit.parents else None
    folders: dict[str, list[str]] = {}
    for item in repo.changed_entries(parent, commit.tree):
        problem = item_problem(repo, commit.tree, item, policy, folders)
        if problem:
            problems.append(f"{where} {redact(item.path)}: {problem}")
    problems += [f"{where} {redact(str(p))}" for p in change_problems(repo, parent, commit.tree)]
    return problems


def _extra_headers(repo: Repo, sha: str) -> bytes:
    """The headers of an object beyond the ones checked on their own (signatures, mergetags,
    headers anyone can add with ``git hash-object``): text a secret could hide in."""
    lines = repo.raw_headers(sha).split(b"\n")
    return b"\n".join(x for x in lines if not x.startswith((*STANDARD_HEADERS, b"tagger ")))


def _secret_problems(where: str, what: str, data: bytes) -> list[str]:
    findings = scan(data.decode("utf-8", errors="replace"))
    if not findings:
        return []
    first = findings[0]
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    return [
        f"{where}: {what} contains a secret: {first.kind} at line {first.line}: "
        f"{first.excerpt}{more} (history cannot forget it)"
    ]


def item_problem(
    repo: Repo, tree: Tree, item: TreeEntry, policy: Policy, folders: dict[str, list[str]]
) -> str:
    """Why a checkout, the vault or its readers cannot take this tree item ("" when fine)."""
    if item.kind != "file":
        return (
            f"a {item.kind} (mode {item.mode:o}) is refused: a vault holds plain files only "
            "(a checkout would follow it out of the vault)"
        )
    problem = portable_path_problem(item.path) or _case_problem(repo, tree, item.path, folders)
    if problem:
        return problem
    findings = scan(item.path)
    if findings:
        return f"the file name contains a secret: {findings[0].kind} (history cannot forget it)"
    return file_problem(item.path, repo.blob(item.oid) or b"", policy)


def _case_problem(repo: Repo, tree: Tree, path: str, folders: dict[str, list[str]]) -> str:
    parts = path.split("/")
    for depth, name in enumerate(parts):
        folder = "/".join(parts[:depth])
        if folder not in folders:
            folders[folder] = repo.names_in(tree, folder)
        other = case_collision(name, folders[folder])
        if other:
            there = f"{folder}/{other}" if folder else other
            return (
                f"differs only in letter case or Unicode normalization from {there}: a "
                "case-insensitive checkout (macOS, Windows) holds them as one"
            )
    return ""


# ---------------------------------------------------------------- one file


def file_problem(path: str, data: bytes, policy: Policy) -> str:
    """The ingest contract for an entry, the log format for the log, TOML for the settings,
    and a secret scan for every file, text or binary ("" when fine)."""
    name = path.rsplit("/", 1)[-1]
    text_only = is_entry_path(path) or path.startswith("log/") or name in (INDEX, LOG)
    if text_only or path == VAULT_TOML:
        try:
            text = decode_text(data, path)
        except ClawqlError as exc:
            return exc.message
    else:  # any other file, binary included: scanned as text, undecodable bytes replaced
        text = data.decode("utf-8", errors="replace")
    findings = scan(text)
    if findings:
        return str(SecretDetected(findings, path).message).removeprefix("refusing to commit: ")
    if path == VAULT_TOML:
        parsed = _toml(data)
        return parsed if isinstance(parsed, str) else ""
    if path == LOG or path.startswith("log/"):
        return log_problem(path, text)
    if is_entry_path(path):
        return contract_problem(policy.settings, path, text)
    return ""


def contract_problem(settings: Settings, path: str, text: str) -> str:
    """What ingest would refuse in this entry file (frontmatter, title, path, size), or ""."""
    try:
        fm, body = split_frontmatter(text)
        if fm is None:
            return "no YAML frontmatter at byte 0 ('---' line)"
        check_frontmatter_text(fm, settings.max_frontmatter_bytes)  # before YAML reads it
        finalize(settings, fm, body, path)
    except ClawqlError as exc:
        return exc.message
    return ""


def log_problem(path: str, text: str) -> str:
    """A log page is what the engine renders: ``log.md`` or ``log/YYYY-MM.md``, its title,
    ``## YYYY-MM-DD`` headings (of its month) and log lines, nothing else (it is read back as
    history and shown to agents, so free text has no place in it)."""
    page = LOG_PAGE.match(path)
    if path != LOG and page is None:
        return "the engine writes only log/YYYY-MM.md pages in log/; this is no log page"
    month = page.group(1) if page else ""
    lines = text.split("\n")
    title = f"# Log {month}" if month else "# Log"
    if lines[0] != title:
        return f"line 1 is not the log title {title!r}"
    day = ""
    for number, line in enumerate(lines[1:], start=2):
        day, problem = _log_line(line, day, month)
        if problem:
            return f"line {number}: {problem} (log files are generated; regenerate them)"
    return ""


def _log_line(line: str, day: str, month: str) -> tuple[str, str]:
    """The day in force after ``line``, and what is wrong with it ("" when fine)."""
    if not line:
        return day, ""
    if line.startswith("## "):
        heading = line[3:]
        try:
            date.fromisoformat(heading)
        except ValueError:
            return day, f"{heading[:20]!r} is not a YYYY-MM-DD day heading"
        if month and not heading.startswith(month):
            return day, f"the day {heading} is not in {month}"
        return heading, ""
    try:
        event = parse_log_line(line, day) if day else None
    except ValueError:
        event = None
    return day, "" if event is not None else "not a log line (a '* HH:MM:SSZ EVENT ...' line)"


# ---------------------------------------------------------------- review


def review_problems(repo: Repo, update: RefUpdate, tip: Commit, policy: Policy) -> list[str]:
    """With review required on the protected branch, what the push lays on it (its first-parent
    chain from the old tip) may change entries only through review merges or as an exempt
    writer, and may change ``[policy]`` only through a review merge or, when the policy names
    keys (``allowed_signers``), in a commit a reviewer signed."""
    base = update.old if update.old != ZERO else None
    problems: list[str] = []
    for commit in repo.first_parent_since(tip, base):
        problems += _reviewed(repo, commit, update.ref, policy)
    return problems


def _reviewed(repo: Repo, commit: Commit, ref: str, policy: Policy) -> list[str]:
    where = f"{ref}: git:{commit.id}"
    trailers = parse_trailers(commit.message)
    if trailers.get("Clawql-Event") == REVIEW_EVENT and len(commit.parents) == 2:
        return _review_merge_problems(repo, commit, where, policy)
    first = commit.parents[0] if commit.parents else None
    if _policy_state(repo, first) != _policy_state(repo, commit):
        why = _policy_change_refusal(repo, commit, policy)
        if why:
            return [
                f"{where} {VAULT_TOML}: changes [policy] or its allowed_signers on {ref} "
                f"outside a review; {why}"
            ]
    writer = _writer(repo, commit, policy)
    if writer in policy.review.exempt:
        return []
    changed = repo.diff_paths(first.tree if first else None, commit.tree)
    entries = [path for path, _, _ in changed if is_entry_path(path) or is_schema_path(path)]
    if entries:
        return [
            f"{where} {path}: changes {'a schema' if is_schema_path(path) else 'an entry'} on "
            f"{ref} without review (the vault requires review: push to "
            "proposals/<agent>/<session> and have a person accept it)"
            for path in entries
        ]
    reviewers = policy.review.reviewers
    if (policy.review.keyed and not writer) or (reviewers and writer not in reviewers):
        who = "no listed key signed it" if policy.review.keyed else f"it names {writer!r}"
        return [
            f"{where} is neither a review merge nor a commit by an exempt writer or a reviewer "
            f"({who}); with review required only those land on {ref} directly"
        ]
    return []


def _writer(repo: Repo, commit: Commit, policy: Policy) -> str:
    """Who made a direct commit: the principal of its signature when the policy names keys,
    else the Agent-Id it claims (a name anyone can write: see docs/security.md)."""
    if policy.review.keyed:
        return signer(repo, commit, policy.review.signers)
    return parse_trailers(commit.message).get("Agent-Id")


def _policy_change_refusal(repo: Repo, commit: Commit, policy: Policy) -> str:
    """Why this direct commit may not change the policy ("" when a reviewer signed it)."""
    review = policy.review
    if not review.keyed:
        return (
            "without allowed_signers the remote cannot tell a reviewer from an agent (names "
            "are self-asserted): change it through an accepted proposal, or name keys and sign"
        )
    who = signer(repo, commit, review.signers)
    if not who:
        return "it is not signed by a key the policy's allowed_signers lists"
    if review.reviewers and who not in review.reviewers:
        return f"its signer {who} is not one of the policy's reviewers"
    return ""


def _review_merge_problems(repo: Repo, merge: Commit, where: str, policy: Policy) -> list[str]:
    """A review merge has the shape `clawql review accept` gives it: the second parent is the
    proposal tip it names, accepted by a reviewer the policy allows who is not the proposing
    agent (signed by that reviewer when the policy names keys), and it lays on the branch
    nothing the proposal does not hold."""
    trailers = parse_trailers(merge.message)
    tip = merge.parents[1]
    reviewer = trailers.get("Reviewer")
    review = policy.review
    shape = [
        (trailers.get("Review-Verdict") == "accepted", "its Review-Verdict is not accepted"),
        (trailers.get("Proposal-Tip") == str(tip.id), "its Proposal-Tip is not its second parent"),
        (
            trailers.get("Proposal-Branch").startswith(PROPOSAL_PREFIX),
            "its Proposal-Branch is not a proposals/ branch",
        ),
        (
            reviewer not in ("", trailers.get("Proposal-Agent")),
            "its Reviewer is missing or is the proposing agent",
        ),
        (
            not review.reviewers or reviewer in review.reviewers,
            f"its Reviewer {reviewer!r} is not one of the policy's reviewers",
        ),
        (
            not review.keyed or signer(repo, merge, review.signers) == reviewer,
            f"it is not signed by its Reviewer {reviewer!r} (the policy names keys)",
        ),
    ]
    problems = [f"{where} is not a review merge: {why}" for ok, why in shape if not ok]
    first = merge.parents[0]
    for path, _, _ in repo.diff_paths(first.tree, merge.tree):
        if _generated(path) or repo.blob_id_at(merge.tree, path) == repo.blob_id_at(tip.tree, path):
            continue
        problems.append(f"{where} {path}: the review merge changes a file not in the proposal")
    return problems


def _generated(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name == INDEX or path == LOG or path.startswith("log/")


# ---------------------------------------------------------------- signatures


def signer(repo: Repo, commit: Commit, allowed_signers: bytes) -> str:
    """The principal whose key, listed in ``allowed_signers``, signed ``commit`` ("" when
    none did)."""
    if not allowed_signers.strip():
        return ""
    return _principal(repo.gitdir, str(commit.id), allowed_signers)


@functools.lru_cache(maxsize=4096)
def _principal(gitdir: Path, sha: str, allowed_signers: bytes) -> str:
    with tempfile.NamedTemporaryFile("wb", suffix=".signers", delete=False) as handle:
        handle.write(allowed_signers)
    try:
        result = subprocess.run(
            [
                "git",
                f"--git-dir={gitdir}",
                "-c",
                "gpg.format=ssh",
                "-c",
                f"gpg.ssh.allowedSignersFile={handle.name}",
                "show",
                "-s",
                "--format=%G?%x00%GS",
                sha,
            ],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ},
        )
    finally:
        os.unlink(handle.name)
    verdict, _, principal = result.stdout.strip().partition("\x00")
    return principal if result.returncode == 0 and verdict == "G" else ""
