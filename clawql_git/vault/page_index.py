"""The category profile the ingest classifier reads, kept beside the index as derived state:
stamped with the tree it describes, caught up from the changes between that tree and the one
an ingest is planned against (the cost follows the change), rebuilt when its tree is gone."""

from __future__ import annotations

import json
from collections.abc import Mapping

from clawql_git.errors import ClawqlError, InvalidInput
from clawql_git.gitstore import GitStore, Tree
from clawql_git.gitstore.files import atomic_write
from clawql_git.index.builder import entry_paths
from clawql_git.index.classifier import (
    CategoryProfile,
    ChatClassifier,
    Classification,
    Classifier,
    TermClassifier,
    profile_terms,
)
from clawql_git.model.entry import Entry, decode_text
from clawql_git.model.paths import is_entry_path

PROFILE_FILE = "page_index.json"
SAVE_AFTER = 25  # entries caught up in memory before the profile is saved again
ENV_CLASSIFIER = "CLAWQL_PAGE_INDEX"  # "terms" (default), "llm", or "off" (type, first tag)


class PageIndexer:
    """Classifies entries at ingest against the profile of the tree they are written on."""

    def __init__(self, store: GitStore, classifier: Classifier | None = None) -> None:
        self.store = store
        self.classifier = classifier or TermClassifier()
        self._profile: CategoryProfile | None = None
        self._unsaved = 0

    @classmethod
    def from_env(cls, store: GitStore, env: Mapping[str, str]) -> PageIndexer | None:
        """The indexer the environment asks for (None: classification is off)."""
        choice = env.get(ENV_CLASSIFIER, "terms").strip().lower() or "terms"
        if choice == "off":
            return None
        if choice == "terms":
            return cls(store)
        if choice == "llm":
            from clawql_git.llm.chat import ENV_URL, endpoint_from_env

            endpoint = endpoint_from_env(env)
            if endpoint is None:
                raise InvalidInput(f"{ENV_CLASSIFIER}=llm needs {ENV_URL} (an endpoint to ask)")
            return cls(store, ChatClassifier(endpoint))
        raise InvalidInput(f"{ENV_CLASSIFIER} must be 'terms', 'llm' or 'off', got {choice!r}")

    def classify(self, tree: Tree | None, entry: Entry) -> Entry:
        """``entry`` with ``page_index_path`` / ``page_index_categories`` written into its
        frontmatter in place; an entry that names its own path keeps it."""
        if entry.meta.get("page_index_path"):
            return entry
        found = self.classification(tree, entry)
        return entry.with_changes(found.frontmatter())

    def classification(self, tree: Tree | None, entry: Entry) -> Classification:
        """Where ``entry`` would go in the tree ``tree`` holds."""
        return self.classifier.classify(entry, self.profile_at(tree))

    def profile_at(self, tree: Tree | None) -> CategoryProfile:
        """The profile of ``tree``: the one held, caught up; else the saved one; else built."""
        want = str(tree.id) if tree is not None else ""
        profile = self._profile or self._load()
        if profile is None or not self._catch_up(profile, want, tree):
            profile = self._build(tree, want)
        self._profile = profile
        if self._unsaved >= SAVE_AFTER:
            self.save()
        return profile

    def save(self) -> None:
        """Write the held profile beside the index (derived: losing it loses nothing)."""
        if self._profile is None:
            return
        data = json.dumps(self._profile.to_json(), separators=(",", ":")).encode()
        atomic_write(self.store.state_dir / PROFILE_FILE, data, fsync=False)
        self._unsaved = 0

    def _load(self) -> CategoryProfile | None:
        path = self.store.state_dir / PROFILE_FILE
        try:
            return CategoryProfile.from_json(json.loads(path.read_bytes()))
        except (OSError, ValueError):
            return None

    def _catch_up(self, profile: CategoryProfile, want: str, tree: Tree | None) -> bool:
        """Apply the changes from the profile's tree to ``tree``; False when that tree is gone."""
        if profile.tree == want:
            return True
        old = self.store.tree_by_id(profile.tree) if profile.tree else None
        if profile.tree and old is None:
            return False
        for path, before, after in self.store.diff_paths(old, tree):
            if is_entry_path(path):
                self._count(profile, path, before, -1)
                self._count(profile, path, after, 1)
        profile.tree = want
        return True

    def _count(self, profile: CategoryProfile, path: str, blob: str | None, sign: int) -> None:
        entry = self._entry(path, blob)
        if entry is not None:
            category, found = profile_terms(entry)
            profile.add(category, found, sign)
            self._unsaved += 1

    def _entry(self, path: str, blob: str | None) -> Entry | None:
        data = self.store.blob(blob) if blob else None
        if data is None:
            return None
        try:
            return Entry.parse(path, decode_text(data, path))
        except ClawqlError:
            return None  # an entry that does not parse is left out, as the index leaves it

    def _build(self, tree: Tree | None, want: str) -> CategoryProfile:
        profile = CategoryProfile(want)
        for path in entry_paths(self.store, tree):
            self._count(profile, path, self.store.blob_id_at(tree, path), 1)
        self._unsaved = SAVE_AFTER  # a full build is worth keeping
        return profile
