"""Java calls resolved by declared types: fields, locals, parameters, inheritance, static
methods, overloads told apart by argument count, chained return types, ``super`` and ``new``
(the idioms of the Java Language Specification, chapters 8 and 15.12), and types of the
same package, which need no import."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.codegraph_facts import build, extract

ROOT = "src/main/java/com/acme/"
NODE = """package com.acme;

public abstract class Node {
    protected Node parent;

    public Node parent() { return parent; }

    public String attr(String key) { return key; }

    public Node attr(String key, String value) { return this; }

    public Node before(Node other) { return this; }

    public Node cloneNode() { return this; }
}
"""
ELEMENT = """package com.acme;

public class Element extends Node implements Named {
    private final Tag tag;

    public Element(Tag tag) { this.tag = tag; }

    @Override
    public Element attr(String key, String value) {
        super.attr(key, value);
        return this;
    }

    public Element child(int index) { return this; }

    public Tag tag() { return tag; }

    public String name() { return tag.name(); }

    public String describe() { return name() + tag.normal(); }

    @Override
    public Node before(Node other) {
        return super.before(other);
    }

    public static Element create(String name) { return new Element(Tag.valueOf(name)); }

    class Walker {
        Element next() { return child(0); }
    }
}
"""
NAMED = """package com.acme;

public interface Named {
    String name();

    default String label() { return name(); }
}
"""
TAG = """package com.acme;

public final class Tag {
    public static Tag valueOf(String name) { return new Tag(); }

    public static Tag valueOf(String name, boolean normalize) { return new Tag(); }

    public String name() { return ""; }

    public String normal() { return ""; }

    public Tag copy(String... names) { return this; }
}
"""
DOCUMENT = """package com.acme.doc;

import com.acme.Element;
import com.acme.Node;
import com.acme.Tag;
import java.util.ArrayList;

public class Document extends Element {
    private Element body;

    public Document() { super(Tag.valueOf("#root")); }

    public Element body() { return body; }

    public String title(Element head) {
        Element first = head.child(0);
        first.attr("class", "t").attr("x");
        Node up = first.parent();
        up.attr("id");
        body().child(1).tag().name();
        new Elements().first().tag().normal();
        Tag.valueOf("p", true).copy("a", "b").name();
        this.body.tag().copy();
        return body.attr("title");
    }

    static class Elements extends ArrayList<Element> {
        Element first() { return get(0); }
    }
}
"""
NODES = """package com.acme.select;

import com.acme.Node;
import java.util.ArrayList;

public class Nodes<T extends Node> extends ArrayList<T> {
    public T firstOne() { return get(0); }

    void touch(T node) { node.cloneNode(); }
}
"""
ELEMENTS = """package com.acme.select;

import com.acme.Element;

public class Elements extends Nodes<Element> {
}
"""
QUERIES = """package com.acme.select;

import com.acme.Element;
import com.acme.Tag;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

public class Queries implements Map.Entry<String, String> {
    private static final boolean ready = ready();
    private Map.@Nullable Entry<String, Tag> entry;

    static boolean ready() { return Helper.check(); }

    void walk(List<Element> found, Elements els, Iterator<Tag> tags) {
        found.get(0).child(1);
        els.get(0).tag();
        tags.next().name();
        entry.getValue().normal();
        found.size();
    }

    void pick(com.acme.Element in) { in.tag(); }

    void generic(Nodes<Element> nodes) { nodes.get(0).child(2); }

    void pick(com.acme.doc.Document in) { in.body(); }

    public String getKey() { return Helper.check() ? "" : ""; }

    public String getValue() { return ""; }

    public String setValue(String v) { return v; }
}
"""
HELPER = """package com.acme.select;

class Helper {
    static boolean check() { return true; }
}
"""
MODES = """package com.acme.select;

import static com.acme.select.Modes.Escape.extended;
import static com.acme.select.Modes.Escape.lookup;

import com.acme.Element;
import com.acme.Node;
import com.acme.Tag;
import java.io.Reader;

public class Modes {
    enum Escape {
        base, extended;

        static Escape lookup(String name) { return base; }

        Tag tagFor(String name) { return Tag.valueOf(name); }
    }

    static class Settings {
        Settings(int level) {}

        Settings mode(Escape mode) { return this; }

        Escape mode() { return Escape.base; }

        Reader open() { return null; }
    }

    void use(Node node) throws Exception {
        Escape.extended.tagFor("b").name();
        lookup("x").tagFor("y");
        new Settings(1).mode(Escape.base).open();
        new Settings(2).mode().tagFor("z");
        ((Element) node).tag().normal();
        try (Parsed parsed = new Parsed()) {
            parsed.root();
        }
        extended.tagFor("q");
        Current.mode();
    }

    private static final Settings Current = new Settings(3);
    private static final Parsed Parsed = new Parsed();

    static class Parsed implements AutoCloseable {
        Element root() { return null; }

        public void close() {}
    }
}
"""
FILES = {
    ROOT + "Node.java": NODE,
    ROOT + "Element.java": ELEMENT,
    ROOT + "Named.java": NAMED,
    ROOT + "Tag.java": TAG,
    ROOT + "doc/Document.java": DOCUMENT,
    ROOT + "select/Nodes.java": NODES,
    ROOT + "select/Elements.java": ELEMENTS,
    ROOT + "select/Queries.java": QUERIES,
    ROOT + "select/Helper.java": HELPER,
    ROOT + "select/Modes.java": MODES,
}


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int, str], str]:
    """(file name, line, callee as written) -> 'File.java:qualname' it resolved to ('' when
    unresolved)."""
    root: Path = tmp_path_factory.mktemp("java")
    graph = build(root, FILES)
    out = {}
    rows = graph.store.query("SELECT path, line, callee, target_path, target_qualname FROM calls")
    for r in rows:
        where = f"{r[3].rsplit('/', 1)[-1]}:{r[4]}" if r[3] else ""
        out[(r[0].rsplit("/", 1)[-1], r[1], r[2])] = where
    graph.close()
    return out


@pytest.mark.parametrize(
    ("site", "target"),
    [
        # a parameter's declared type, then a local's (JLS 6.5.6.1)
        (("Document.java", 16, "head.child"), "Element.java:Element.child"),
        # overloads by argument count (15.12.2): the two-argument attr is Element's override,
        # the one-argument attr is inherited from Node (8.4.8)
        (("Document.java", 17, "first.attr"), "Element.java:Element.attr"),
        (("Document.java", 17, "first.attr().attr"), "Node.java:Node.attr"),
        (("Document.java", 18, "first.parent"), "Node.java:Node.parent"),
        (("Document.java", 19, "up.attr"), "Node.java:Node.attr"),
        # chained calls typed by declared return types (15.12.1)
        (("Document.java", 20, "body().child"), "Element.java:Element.child"),
        (("Document.java", 20, "body().child().tag"), "Element.java:Element.tag"),
        (("Document.java", 20, "body().child().tag().name"), "Tag.java:Tag.name"),
        # new X() as a receiver; a nested class; a method inherited from outside (ArrayList)
        (("Document.java", 21, "new Elements().first"), "Document.java:Document.Elements.first"),
        (("Document.java", 21, "new Elements().first().tag().normal"), "Tag.java:Tag.normal"),
        (("Document.java", 21, "Elements"), "Document.java:Document.Elements"),
        # static methods by class name, overloads and a variadic method
        (("Document.java", 22, "Tag.valueOf"), "Tag.java:Tag.valueOf"),
        (("Document.java", 22, "Tag.valueOf().copy"), "Tag.java:Tag.copy"),
        (("Document.java", 22, "Tag.valueOf().copy().name"), "Tag.java:Tag.name"),
        # a field through this, then a field by its simple name (8.3)
        (("Document.java", 23, "this.body.tag().copy"), "Tag.java:Tag.copy"),
        (("Document.java", 24, "body.attr"), "Node.java:Node.attr"),
        # super.m() (15.12.1): the superclass's declaration, not the override
        (("Element.java", 10, "super.attr"), "Node.java:Node.attr"),
        (("Element.java", 24, "super.before"), "Node.java:Node.before"),
        # a field's type; implicit this; a type of the same package without an import (7.4)
        (("Element.java", 18, "tag.name"), "Tag.java:Tag.name"),
        (("Element.java", 20, "name"), "Element.java:Element.name"),
        (("Element.java", 20, "tag.normal"), "Tag.java:Tag.normal"),
        (("Element.java", 27, "Tag.valueOf"), "Tag.java:Tag.valueOf"),
        (("Element.java", 27, "Element"), "Element.java:Element.Element"),
        # an inner class calls a method of its enclosing class (8.1.3)
        (("Element.java", 30, "child"), "Element.java:Element.child"),
        # an interface's default method calls its abstract method
        (("Named.java", 6, "name"), "Named.java:Named.name"),
        # elements of the JDK's containers: List<Element>.get, Iterator<Tag>.next,
        # Map.Entry<String, Tag>.getValue (a type annotation inside the type dropped), and
        # a class given its element through a generic base (Elements extends Nodes<Element>)
        (("Queries.java", 16, "found.get().child"), "Element.java:Element.child"),
        (("Queries.java", 17, "els.get().tag"), "Element.java:Element.tag"),
        (("Queries.java", 18, "tags.next().name"), "Tag.java:Tag.name"),
        (("Queries.java", 19, "entry.getValue().normal"), "Tag.java:Tag.normal"),
        # a field initializer calls a static method; a type of the same package from a class
        # with an outside base; a constant and a method of the same name
        (("Queries.java", 10, "ready"), "Queries.java:Queries.ready"),
        (("Queries.java", 13, "Helper.check"), "Helper.java:Helper.check"),
        (("Queries.java", 29, "Helper.check"), "Helper.java:Helper.check"),
        # fully qualified parameter types, one per overload of the same name
        (("Queries.java", 23, "in.tag"), "Element.java:Element.tag"),
        (("Queries.java", 27, "in.body"), "Document.java:Document.body"),
        # a generic class of the repository given its element type (Nodes<T> extends
        # ArrayList<T>)
        (("Queries.java", 25, "nodes.get().child"), "Element.java:Element.child"),
        # inside the class, a bounded type variable is its bound (JLS 4.4)
        (("Nodes.java", 9, "node.cloneNode"), "Node.java:Node.cloneNode"),
        # an enum constant has its enum's type; a method imported by ``import static``
        (("Modes.java", 31, "Escape.extended.tagFor"), "Modes.java:Modes.Escape.tagFor"),
        (("Modes.java", 31, "Escape.extended.tagFor().name"), "Tag.java:Tag.name"),
        (("Modes.java", 32, "lookup"), "Modes.java:Modes.Escape.lookup"),
        (("Modes.java", 32, "lookup().tagFor"), "Modes.java:Modes.Escape.tagFor"),
        # the constructor's arguments do not count for the method after it: mode(x) gives
        # Settings, mode() an Escape
        (("Modes.java", 33, "new Settings().mode().open"), "Modes.java:Modes.Settings.open"),
        (("Modes.java", 34, "new Settings().mode().tagFor"), "Modes.java:Modes.Escape.tagFor"),
        # a cast types its operand (15.16); a try-with-resources variable its declared type
        (("Modes.java", 35, "((Element) node).tag"), "Element.java:Element.tag"),
        (("Modes.java", 35, "((Element) node).tag().normal"), "Tag.java:Tag.normal"),
        (("Modes.java", 37, "parsed.root"), "Modes.java:Modes.Parsed.root"),
        # an enum constant imported by ``import static``; a constant of a class type
        (("Modes.java", 39, "extended.tagFor"), "Modes.java:Modes.Escape.tagFor"),
        (("Modes.java", 40, "Current.mode"), "Modes.java:Modes.Settings.mode"),
        # a constant named like its class, declared before it, does not hide the class
        (("Modes.java", 44, "Parsed"), "Modes.java:Modes.Parsed"),
    ],
)
def test_java_call_targets(
    targets: dict[tuple[str, int, str], str], site: tuple[str, int, str], target: str
) -> None:
    assert targets[site] == target


def test_unproven_receivers_stay_unresolved(targets: dict[tuple[str, int, str], str]) -> None:
    # ArrayList.get is outside the repository: not bound to anything of it
    assert targets[("Document.java", 28, "get")] == ""
    assert targets[("Queries.java", 16, "found.get")] == ""  # List.get is the JDK's
    assert targets[("Queries.java", 20, "found.size")] == ""


def test_java_methods_record_returns_and_parameters() -> None:
    facts = extract("java", ROOT + "Tag.java", TAG)
    shapes = {(s.qualname, s.returns, s.params, s.variadic) for s in facts.symbols}
    assert ("Tag.valueOf", "Tag", 2, False) in shapes
    assert ("Tag.copy", "Tag", 1, True) in shapes
    assert ("Tag.name", "String", 0, False) in shapes


def test_java_calls_record_argument_counts_of_their_chain() -> None:
    facts = extract("java", ROOT + "doc/Document.java", DOCUMENT)
    args = {c.callee: c.args for c in facts.calls if c.line == 22}
    assert args == {
        "Tag.valueOf": (2,),
        "Tag.valueOf().copy": (2, 2),
        "Tag.valueOf().copy().name": (2, 2, 0),
    }


def test_java_and_kotlin_of_one_directory_resolve_imports_each_their_way(tmp_path: Path) -> None:
    # both import from package ``lib``: the Java extractor finds its .java files there, the
    # Kotlin one its .kt files; neither answer stands in for the other
    graph = build(
        tmp_path,
        {
            "src/lib/Tool.kt": "package lib\n\nobject Tool {\n    fun run() {}\n}\n",
            "src/lib/Helper.java": (
                "package lib;\n\npublic class Helper {\n    public static void help() {}\n}\n"
            ),
            "src/app/Main.java": (
                "package app;\n\nimport lib.Helper;\n\nclass Main {\n"
                "    void go() { Helper.help(); }\n}\n"
            ),
            "src/app/Use.kt": "package app\n\nimport lib.Tool\n\nfun use() {\n    Tool.run()\n}\n",
        },
    )
    rows = graph.store.query("SELECT path, callee, target_path, target_qualname FROM calls")
    found = {(r[0], r[1]): (r[2], r[3]) for r in rows}
    graph.close()
    assert found[("src/app/Main.java", "Helper.help")] == ("src/lib/Helper.java", "Helper.help")
    assert found[("src/app/Use.kt", "Tool.run")] == ("src/lib/Tool.kt", "Tool.run")
