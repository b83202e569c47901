"""What the ontology check costs an ingest, in one run: the median time of the writer's check of
a new service instance that references a person (schemas read, the person folder listed) and
of a new decision (no entity touched: the check returns at once), each over the median time of
a whole ingest of an instance, in a vault holding SMALL and then LARGE instances of the service
kind. Prints ratios; absolute times are noise on a shared machine.

    PYTHONPATH=. .venv/bin/python bench/entity_check_cost.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from clawql_git import Identity, Vault
from clawql_git.ontology import GitView, Overlay, check_tree

WHO = Identity(agent_id="bench", session_id="b-1")
PERSON = b"kind: person\nfields:\n  - name: name\n    type: string\n    required: true\n"
SERVICE = (
    b"kind: service\nfields:\n  - name: name\n    type: string\n    required: true\n"
    b"  - name: owner\n    type: reference(person)\n    required: true\n"
)
SMALL, LARGE = 20, 1000


def instance(kind: str, title: str, **fields: str) -> str:
    extra = "".join(f"{k}: {v}\n" for k, v in fields.items())
    return f"---\ntype: entity_instance\ntitle: {title}\nentity_kind: {kind}\n{extra}---\nx\n"


def make(root: Path, services: int) -> Vault:
    vault = Vault.init(root, identity=WHO, eager_index=False, embedding_model="none")
    vault.write_schema(PERSON, SERVICE, identity=WHO)
    people = [instance("person", f"P{n}", name=f"p{n}") for n in range(50)]
    vault.ingest_all(people, identity=WHO)
    docs = [instance("service", f"S{n}", name=f"s{n}", owner=f"p{n % 50}") for n in range(services)]
    vault.ingest_all(docs, identity=WHO)
    return vault


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def check_alone(vault: Vault, path: str, doc: str) -> Callable[[], None]:
    """The writer's ontology check of one new file against HEAD, on its own."""
    head = vault.store.head_commit()
    view = Overlay(GitView(vault.store, head.tree if head else None), {path: doc.encode()})
    return lambda: check_tree(view, [path])


def measure(vault: Vault, rounds: int) -> dict[str, float]:
    out: dict[str, list[float]] = {"ingest": [], "check": [], "check_decision": []}
    for n in range(rounds):
        doc = instance("service", f"New {n}", name=f"new-{n}", owner="p1")
        path = f"entity_instances/service/2099-01/probe-{n}.md"
        out["check"].append(timed(check_alone(vault, path, doc)))
        plain = f"---\ntype: decision\ntitle: D{n}\n---\nb\n"
        out["check_decision"].append(timed(check_alone(vault, f"decisions/2099-01/d{n}.md", plain)))
        out["ingest"].append(timed(partial(vault.ingest_markdown, doc, identity=WHO)))
    return {k: statistics.median(v) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in (SMALL, LARGE):
            vault = make(Path(tmp) / f"v{size}", size)
            found[size] = measure(vault, args.rounds)
            vault.close()
    for size, m in found.items():
        print(
            f"{size:5} services: check / whole ingest of an instance = "
            f"{m['check'] / m['ingest']:.3f}; check of a decision / that ingest = "
            f"{m['check_decision'] / m['ingest']:.4f}"
        )
    small, large = found[SMALL]["check"], found[LARGE]["check"]
    print(f"instance check, {LARGE} vs {SMALL} services in the kind: {large / small:.2f}x")


if __name__ == "__main__":
    main()
