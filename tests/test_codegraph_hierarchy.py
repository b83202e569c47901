"""The type hierarchy (issue #18): supertype edges of every indexed language with their file,
line, relation and resolution stated here, the up/down walks, ``clawql code hierarchy`` and the
schema bump that rebuilds an index of the previous schema."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git.cli import cli
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.codegraph.store import SCHEMA_VERSION
from clawql_git.errors import InvalidInput, NotFound

PY = {
    "zoo/__init__.py": '"""The zoo."""\n',
    "zoo/base.py": (
        "import abc\n"
        "import typing\n"
        "from typing import Generic, Protocol, TypeVar\n"
        "\n"
        "T = TypeVar('T')\n"
        "\n"
        "\n"
        "class Animal(abc.ABC):\n"
        "    class Meta:\n"
        "        pass\n"
        "\n"
        "\n"
        "class Cage(Generic[T]):\n"
        "    pass\n"
        "\n"
        "\n"
        "class Feeder(Protocol[T]):\n"
        "    pass\n"
        "\n"
        "\n"
        "class Pen(typing.Generic[T], Animal, metaclass=abc.ABCMeta):\n"
        "    pass\n"
    ),
    "zoo/cats.py": (
        "from zoo.base import Animal, Cage\n"
        "from . import base\n"
        "\n"
        "\n"
        "class Cat(Animal):\n"
        "    pass\n"
        "\n"
        "\n"
        "class Lion(Cat, base.Cage[int]):\n"
        "    class Meta(Animal.Meta):\n"
        "        pass\n"
    ),
}
TS = {
    "src/shapes.ts": (
        "export interface Named {\n"
        "  name: string;\n"
        "}\n"
        "interface Comparable<T> {\n"
        "  cmp(o: T): number;\n"
        "}\n"
        "export interface Shape extends Named, Comparable<Shape> {\n"
        "  area(): number;\n"
        "}\n"
        "export abstract class Base {}\n"
        "export class Circle extends Base implements Shape, Comparable<Circle> {\n"
        "  name = 'c';\n"
        "  area() { return 1; }\n"
        "  cmp(o: Circle) { return 0; }\n"
        "}\n"
    ),
    "src/ring.ts": (
        "import { Circle } from './shapes';\n"
        "import { EventEmitter } from 'events';\n"
        "export class Ring extends Circle {}\n"
        "export class Bus extends EventEmitter {}\n"
    ),
    "web/widget.js": (
        "const base = require('./base');\n"
        "class Base {}\n"
        "class Widget extends Base {}\n"
        "class Panel extends base.Thing {}\n"
        "module.exports = { Widget, Panel };\n"
    ),
    "web/base.js": "class Thing {}\nmodule.exports = { Thing };\n",
}
J = "src/main/java/com/acme"
JAVA = {
    "src/main/java/com/acme/Animal.java": "package com.acme;\n\npublic interface Animal {}\n",
    "src/main/java/com/acme/Pet.java": (
        "package com.acme;\n\nimport java.io.Serializable;\n\n"
        "public interface Pet extends Animal, Serializable {}\n"
    ),
    "src/main/java/com/acme/Base.java": "package com.acme;\n\npublic abstract class Base {}\n",
    "src/main/java/com/acme/Dog.java": (
        "package com.acme;\n\n"
        "public class Dog extends Base implements Pet, Comparable<Dog> {\n"
        "    public int compareTo(Dog o) { return 0; }\n"
        "}\n"
    ),
    "src/main/java/com/acme/pups/Puppy.java": (
        "package com.acme.pups;\n\nimport com.acme.Dog;\n\npublic class Puppy extends Dog {}\n"
    ),
}
GO = {
    "go.mod": "module example.com/zoo\n\ngo 1.22\n",
    "store/store.go": (
        "package store\n\n"
        'import "io"\n\n'
        "type Reader interface {\n"
        "\tRead() error\n"
        "}\n\n"
        "type ReadCloser interface {\n"
        "\tReader\n"
        "\tio.Closer\n"
        "}\n\n"
        "type Base struct {\n"
        "\tID int\n"
        "}\n\n"
        "type User struct {\n"
        "\tBase\n"
        "\t*Logger\n"
        "\tName string\n"
        "}\n"
    ),
    "store/log.go": "package store\n\ntype Logger struct{}\n",
    "api/api.go": (
        'package api\n\nimport "example.com/zoo/store"\n\ntype Admin struct {\n\tstore.User\n}\n'
    ),
}
RUST = {
    "Cargo.toml": '[package]\nname = "zoo"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod shapes;\npub mod draw;\n",
    "src/shapes.rs": (
        "pub trait Named {\n"
        "    fn name(&self) -> String;\n"
        "}\n\n"
        "pub trait Shape: Named + std::fmt::Debug {\n"
        "    fn area(&self) -> f64;\n"
        "}\n\n"
        "#[derive(Debug)]\n"
        "pub struct Circle;\n\n"
        "impl Named for Circle {\n"
        "    fn name(&self) -> String { String::new() }\n"
        "}\n"
    ),
    "src/draw.rs": (
        "use crate::shapes::{Circle, Shape};\n"
        "use std::fmt;\n\n"
        "impl Shape for Circle {\n"
        "    fn area(&self) -> f64 { 1.0 }\n"
        "}\n\n"
        "impl fmt::Display for Circle {\n"
        "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }\n"
        "}\n"
    ),
}

Edge = tuple[str, str, str, int, str, str]
"""(child, base as written, relation, line, base definition or '', resolution)."""

EXPECTED: dict[str, set[Edge]] = {
    "python": {
        ("zoo/base.py:Animal", "abc.ABC", "extends", 8, "", "external"),
        ("zoo/base.py:Cage", "Generic", "extends", 13, "", "external"),
        ("zoo/base.py:Feeder", "Protocol", "extends", 17, "", "external"),
        ("zoo/base.py:Pen", "typing.Generic", "extends", 21, "", "external"),
        ("zoo/base.py:Pen", "Animal", "extends", 21, "zoo/base.py:Animal", "exact"),
        ("zoo/cats.py:Cat", "Animal", "extends", 5, "zoo/base.py:Animal", "exact"),
        ("zoo/cats.py:Lion", "Cat", "extends", 9, "zoo/cats.py:Cat", "exact"),
        ("zoo/cats.py:Lion", "base.Cage", "extends", 9, "zoo/base.py:Cage", "exact"),
        ("zoo/cats.py:Lion.Meta", "Animal.Meta", "extends", 10, "zoo/base.py:Animal.Meta", "exact"),
    },
    "typescript": {
        ("src/ring.ts:Ring", "Circle", "extends", 3, "src/shapes.ts:Circle", "exact"),
        ("src/ring.ts:Bus", "EventEmitter", "extends", 4, "", "external"),
        ("src/shapes.ts:Shape", "Named", "extends", 7, "src/shapes.ts:Named", "exact"),
        ("src/shapes.ts:Shape", "Comparable", "extends", 7, "src/shapes.ts:Comparable", "exact"),
        ("src/shapes.ts:Circle", "Base", "extends", 11, "src/shapes.ts:Base", "exact"),
        ("src/shapes.ts:Circle", "Shape", "implements", 11, "src/shapes.ts:Shape", "exact"),
        (
            "src/shapes.ts:Circle",
            "Comparable",
            "implements",
            11,
            "src/shapes.ts:Comparable",
            "exact",
        ),
        ("web/widget.js:Widget", "Base", "extends", 3, "web/widget.js:Base", "exact"),
        ("web/widget.js:Panel", "base.Thing", "extends", 4, "web/base.js:Thing", "exact"),
    },
    "java": {
        (f"{J}/Dog.java:Dog", "Base", "extends", 3, f"{J}/Base.java:Base", "exact"),
        (f"{J}/Dog.java:Dog", "Pet", "implements", 3, f"{J}/Pet.java:Pet", "exact"),
        (f"{J}/Dog.java:Dog", "Comparable", "implements", 3, "", "external"),
        (f"{J}/Pet.java:Pet", "Animal", "extends", 5, f"{J}/Animal.java:Animal", "exact"),
        (f"{J}/Pet.java:Pet", "Serializable", "extends", 5, "", "external"),
        (f"{J}/pups/Puppy.java:Puppy", "Dog", "extends", 5, f"{J}/Dog.java:Dog", "exact"),
    },
    "go": {
        ("api/api.go:Admin", "store.User", "embeds", 6, "store/store.go:User", "exact"),
        ("store/store.go:ReadCloser", "Reader", "embeds", 10, "store/store.go:Reader", "exact"),
        ("store/store.go:ReadCloser", "io.Closer", "embeds", 11, "", "external"),
        ("store/store.go:User", "Base", "embeds", 19, "store/store.go:Base", "exact"),
        ("store/store.go:User", "Logger", "embeds", 20, "store/log.go:Logger", "exact"),
    },
    "rust": {
        ("src/shapes.rs:Circle", "Shape", "implements", 4, "src/shapes.rs:Shape", "exact"),
        ("src/shapes.rs:Circle", "fmt::Display", "implements", 8, "", "external"),
        ("src/shapes.rs:Shape", "Named", "extends", 5, "src/shapes.rs:Named", "exact"),
        ("src/shapes.rs:Shape", "std::fmt::Debug", "extends", 5, "", "external"),
        ("src/shapes.rs:Circle", "Named", "implements", 12, "src/shapes.rs:Named", "exact"),
    },
}
EDGE_FILE = {  # the file an edge is written in, where it is not the child's file
    ("rust", "Shape", 4): "src/draw.rs",
    ("rust", "fmt::Display", 8): "src/draw.rs",
}
SOURCES = {"python": PY, "typescript": TS, "java": JAVA, "go": GO, "rust": RUST}


def build(root: Path, files: dict[str, str]) -> CodeGraph:
    for path, body in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(body)
    graph = CodeGraph.open(root)
    graph.index(history=False)
    return graph


def all_edges(graph: CodeGraph) -> set[Edge]:
    rows = graph.store.query("SELECT * FROM supertypes")
    return {
        (
            f"{r['child_path']}:{r['child_qualname']}",
            r["base"],
            r["relation"],
            r["line"],
            f"{r['target_path']}:{r['target_qualname']}" if r["target_path"] else "",
            r["resolution"],
        )
        for r in rows
    }


@pytest.fixture(params=sorted(SOURCES))
def language(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_every_language_stores_its_exact_supertype_edges(tmp_path: Path, language: str) -> None:
    graph = build(tmp_path, SOURCES[language])
    assert all_edges(graph) == EXPECTED[language]
    for row in graph.store.query("SELECT path, base, line, child_path FROM supertypes"):
        want = EDGE_FILE.get((language, row["base"], row["line"]), row["child_path"])
        assert row["path"] == want


def chain(answer_items: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [
        (e["direction"], e["depth"], e["child"], e["base"], e["resolved"]) for e in answer_items
    ]


def test_up_and_down_walk_the_resolved_definitions(tmp_path: Path) -> None:
    graph = build(tmp_path, PY)
    up = graph.hierarchy("Lion", "up")
    assert chain(up.items) == [
        ("up", 1, "zoo/cats.py:Lion", "Cat", True),
        ("up", 1, "zoo/cats.py:Lion", "base.Cage", True),
        ("up", 2, "zoo/cats.py:Cat", "Animal", True),
        ("up", 2, "zoo/base.py:Cage", "Generic", False),
        ("up", 3, "zoo/base.py:Animal", "abc.ABC", False),
    ]
    assert up.items[0]["file"] == "zoo/cats.py" and up.items[0]["line"] == 9
    assert up.items[-1]["resolution"] == "external" and up.items[-1]["base_file"] is None
    assert chain(graph.hierarchy("Lion", "up", depth=1).items) == chain(up.items[:2])
    down = graph.hierarchy("Animal", "down")
    assert chain(down.items) == [
        ("down", 1, "zoo/base.py:Pen", "Animal", True),
        ("down", 1, "zoo/cats.py:Cat", "Animal", True),
        ("down", 2, "zoo/cats.py:Lion", "Cat", True),
    ]
    both = graph.hierarchy("Cat")
    assert [e["direction"] for e in both.items] == ["up", "up", "down"]
    assert both.extra["targets"] == ["zoo/cats.py:Cat"]


def test_an_external_base_has_descendants(tmp_path: Path) -> None:
    graph = build(tmp_path, PY)
    down = graph.hierarchy("abc.ABC", "down", depth=2)
    assert down.extra["external"] is True
    assert chain(down.items) == [
        ("down", 1, "zoo/base.py:Animal", "abc.ABC", False),
        ("down", 2, "zoo/base.py:Pen", "Animal", True),
        ("down", 2, "zoo/cats.py:Cat", "Animal", True),
    ]
    rust = build(tmp_path / "rs", RUST)
    assert [e["child"] for e in rust.hierarchy("Display", "down").items] == ["src/shapes.rs:Circle"]


def test_go_and_java_chains_cross_packages(tmp_path: Path) -> None:
    go = build(tmp_path / "go", GO)
    assert chain(go.hierarchy("Admin", "up").items) == [
        ("up", 1, "api/api.go:Admin", "store.User", True),
        ("up", 2, "store/store.go:User", "Base", True),
        ("up", 2, "store/store.go:User", "Logger", True),
    ]
    java = build(tmp_path / "java", JAVA)
    down = java.hierarchy("Animal", "down")
    assert [(e["depth"], e["child"].rsplit(":", 1)[1], e["relation"]) for e in down.items] == [
        (1, "Pet", "extends"),
        (2, "Dog", "implements"),
        (3, "Puppy", "extends"),
    ]


def test_bad_queries_are_refused(tmp_path: Path) -> None:
    graph = build(tmp_path, PY)
    with pytest.raises(InvalidInput, match="direction"):
        graph.hierarchy("Cat", "sideways")
    with pytest.raises(InvalidInput, match="--depth"):
        graph.hierarchy("Cat", "up", depth=0)
    with pytest.raises(NotFound, match="no type named 'Nope'"):
        graph.hierarchy("Nope")
    with pytest.raises(NotFound):
        graph.hierarchy("abc.ABC", "up")  # an external type has no ancestors in the graph


def test_cli_hierarchy(tmp_path: Path) -> None:
    build(tmp_path, TS)
    runner = CliRunner()
    done = runner.invoke(cli, ["code", "hierarchy", "Circle", "-C", str(tmp_path), "--json"])
    assert done.exit_code == 0, done.output
    record = json.loads(done.output)
    assert record["direction"] == "both" and record["total"] == 6
    assert [
        (e["direction"], e["depth"], e["child"], e["base"], e["relation"]) for e in record["items"]
    ] == [
        ("up", 1, "src/shapes.ts:Circle", "Base", "extends"),
        ("up", 1, "src/shapes.ts:Circle", "Comparable", "implements"),
        ("up", 1, "src/shapes.ts:Circle", "Shape", "implements"),
        ("up", 2, "src/shapes.ts:Shape", "Comparable", "extends"),
        ("up", 2, "src/shapes.ts:Shape", "Named", "extends"),
        ("down", 1, "src/ring.ts:Ring", "Circle", "extends"),
    ]
    up = runner.invoke(cli, ["code", "hierarchy", "Shape", "--up", "-C", str(tmp_path)])
    assert up.exit_code == 0, up.output
    assert up.output.splitlines()[0].startswith("src/shapes.ts:Shape -> src/shapes.ts:Comparable")
    assert "[extends, exact] src/shapes.ts:7" in up.output
    down = runner.invoke(
        cli, ["code", "hierarchy", "Named", "--down", "--depth", "1", "-C", str(tmp_path)]
    )
    assert down.stdout.splitlines() == [
        "src/shapes.ts:Named <- src/shapes.ts:Shape  [extends, exact] src/shapes.ts:7"
    ]
    bad = runner.invoke(cli, ["code", "hierarchy", "Circle", "--depth", "0", "-C", str(tmp_path)])
    assert bad.exit_code == 2 and "--depth" in bad.output
    missing = runner.invoke(cli, ["code", "hierarchy", "Nope", "-C", str(tmp_path)])
    assert missing.exit_code == 3 and "no type named 'Nope'" in missing.output


def test_an_index_of_the_previous_schema_is_rebuilt(tmp_path: Path) -> None:
    graph = build(tmp_path, GO)
    db_path = graph.db_path
    graph.close()
    db = sqlite3.connect(db_path)  # what schema 8 left: no supertypes table, version 8
    db.execute("DROP TABLE supertypes")
    db.execute("UPDATE meta SET value='8' WHERE key='schema'")
    db.commit()
    db.close()
    reopened = CodeGraph.open(tmp_path, create=False)
    assert reopened.store.get_meta("schema") == SCHEMA_VERSION == "11"
    assert reopened.store.query("SELECT count(*) FROM files")[0][0] == 0
    with pytest.raises(NotFound, match="run `clawql code index`"):
        reopened.hierarchy("User")
    reopened.index(history=False)
    assert all_edges(reopened) == EXPECTED["go"]


def test_an_update_relinks_the_edges(tmp_path: Path) -> None:
    """What the watcher does: an edited file's edges are replaced, a new file's are added."""
    graph = build(tmp_path, PY)
    cats = tmp_path / "zoo" / "cats.py"
    cats.write_text(PY["zoo/cats.py"].replace("class Cat(Animal):", "class Cat(base.Cage):"))
    graph.update(["zoo/cats.py"])
    assert chain(graph.hierarchy("Cat", "up", depth=1).items) == [
        ("up", 1, "zoo/cats.py:Cat", "base.Cage", True)
    ]
    assert [e["child"] for e in graph.hierarchy("Animal", "down", depth=1).items] == [
        "zoo/base.py:Pen"
    ]
    (tmp_path / "zoo" / "more.py").write_text(
        "from zoo.cats import Cat\n\n\nclass Kitten(Cat):\n    pass\n"
    )
    graph.update(["zoo/more.py"])
    assert [e["child"] for e in graph.hierarchy("Cat", "down", depth=1).items] == [
        "zoo/cats.py:Lion",
        "zoo/more.py:Kitten",
    ]
    (tmp_path / "zoo" / "more.py").unlink()
    graph.update(["zoo/more.py"])
    assert [e["child"] for e in graph.hierarchy("Cat", "down", depth=1).items] == [
        "zoo/cats.py:Lion"
    ]
