"""Go calls resolved by declared types, as the Go specification defines them: a local's type
is its declaration's in scope at the call ("Declarations and scope": blocks, closures'
parameters, a type switch's variable per case), selectors go through embedded fields to the
shallowest depth declaring the name ("Selectors", "Struct types"), a field hides a promoted
method, interface methods (embedded interfaces too) are the targets of calls on interface
values, declared results type a chain, elements of slices, arrays and maps (declared so, or
through a named type ``type nodes []*node``) type indexes and ``range`` variables, and a
package is the directory's files with the same ``package`` clause (an external test package
is another). Every resolved edge here is also go/types' reading of the fixture (go vet
passes on it); the unresolved ones are calls of function values or unproven selectors."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawql_git.codegraph.graph import CodeGraph
from tests.codegraph_facts import build, calls

GO_MOD = """module example.com/app

go 1.22
"""

MUX = """package router

import "sync"

type Mux struct {
	sync.Mutex
	*base
	tree    *node
	handler func()
	name    string
}

type base struct{ Logger }

type Logger struct{}

type Muxes []*Mux

func NewMux() *Mux { return &Mux{tree: &node{}} }

func Pair() (*node, *Mux) { return nil, nil }

func (mx *Mux) Tree() *node { return mx.tree }

func (mx *Mux) Get(pattern string) {
	mx.Lock()
	mx.tree.insert(pattern)
	mx.Tree().insert(pattern)
	mx.log()
	mx.handler()
	mx.Print()
}

func (mx *Mux) Match(path string) bool { return false }

func (ms Muxes) Get() {}

func (b *base) log() {}

func (l Logger) Print() {}

func (mx *Mux) Route(fn func(r Router)) {
	fn(mx)
}
"""

TREE = """package router

type node struct{ children []*node }

func (n *node) insert(p string) {
	child := n.find(p)
	child.insert(p)
	var other node
	other.find(p)
	fresh := new(node)
	fresh.find(p)
	lit := node{}
	lit.find(p)
	t, m := Pair()
	t.find(p)
	m.Get(p)
	n.children[0].find(p)
}

func (n *node) find(p string) *node { return n }

func Map[T interface{ find(string) *node }](x T, Pair func()) {
	x.find("")
	Pair()
}

type nodes []*node

type table map[string][]*node

func elements(n *node, ns nodes, tbl table) {
	for _, c := range n.children {
		c.find("")
	}
	ns[0].find("")
	for key, list := range tbl {
		for _, x := range list {
			x.find(key)
		}
	}
	if list, ok := tbl["a"]; ok {
		list[0].find("")
	}
	(&node{}).find("")
	T{}.find("")
}
"""

IFACE = """package router

type Routes interface {
	Match(path string) bool
}

type Router interface {
	Routes
	Get(pattern string)
}

type A struct{}
type B struct{}

func (A) Run() {}
func (B) Run() {}

type C struct{ A }

type E struct{ C }

// D.Run is B's (depth 1), not A's (depth 2, through C)
type D struct {
	C
	B
}

type T struct{}

func (T) find(p string) *node { return nil }

type Shadow struct {
	A
	Run func()
}

func use(r Router, any interface{}, d D, e E, sh Shadow, ms Muxes) {
	r.Get("/")
	r.Match("/")
	switch v := any.(type) {
	case *Mux:
		v.Get("/")
	}
	switch v := r.(type) {
	case *Mux, Routes:
		v.Match("/")
	}
	d.Run()
	e.Run()
	sh.Run()
	ms[0].Get("/")
	ms.Get()
}
"""

MUX_TEST = """package router_test

import "example.com/app/router"
import "testing"

func NewMux() int { return 0 }

func TestMux(t *testing.T) {
	NewMux()
	mx := router.NewMux()
	mx.Get("/")
}
"""

MAIN = """package main

import (
	"fmt"

	"example.com/app/router"
)

func main() {
	r := router.NewMux()
	r.Get("/")
	r.Route(func(r router.Router) {
		r.Get("/")
	})
	r.Get("/again")
	fmt.Println(r)
	get("/")
	get := func(p string) {}
	get("/")
	var mux router.Mux
	mux.Tree()
}

func get(p string) {}
"""

FILES = {
    "go.mod": GO_MOD,
    "router/mux.go": MUX,
    "router/tree.go": TREE,
    "router/iface.go": IFACE,
    "router/mux_test.go": MUX_TEST,
    "main.go": MAIN,
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return build(tmp_path_factory.mktemp("go"), FILES)


def edges(graph: CodeGraph, path: str) -> list[tuple[object, ...]]:
    """(caller, callee, line, target, resolution) of every call of ``path``."""
    return [
        (caller, callee, line, f"{target}:{qual}" if target else "", how)
        for caller, callee, line, target, qual, _, how in calls(graph, path)
    ]


def test_receivers_fields_promoted_methods(graph: CodeGraph) -> None:
    assert edges(graph, "router/mux.go") == [
        ("NewMux", "Mux{}", 19, "router/mux.go:Mux", "exact"),  # &Mux{tree: &node{}}
        ("NewMux", "node{}", 19, "router/tree.go:node", "exact"),
        ("Mux.Get", "mx.Lock", 26, "", "external"),  # promoted from sync.Mutex
        ("Mux.Get", "mx.tree.insert", 27, "router/tree.go:node.insert", "inferred"),
        ("Mux.Get", "mx.Tree", 28, "router/mux.go:Mux.Tree", "inferred"),
        ("Mux.Get", "mx.Tree().insert", 28, "router/tree.go:node.insert", "inferred"),
        ("Mux.Get", "mx.log", 29, "router/mux.go:base.log", "inferred"),  # depth 1
        ("Mux.Get", "mx.handler", 30, "", "unresolved"),  # a field of function type
        # depth 2 (through *base), but sync.Mutex at depth 1 may declare a Print: unproven
        ("Mux.Get", "mx.Print", 31, "", "unresolved"),
        ("Mux.Route", "fn", 43, "", "unresolved"),  # a parameter: a function value
    ]


def test_locals_typed_by_their_declarations(graph: CodeGraph) -> None:
    find = "router/tree.go:node.find"
    assert edges(graph, "router/tree.go") == [
        ("node.insert", "n.find", 6, find, "inferred"),
        ("node.insert", "child.insert", 7, "router/tree.go:node.insert", "inferred"),
        ("node.insert", "other.find", 9, find, "inferred"),  # var other node
        ("node.insert", "new", 10, "", "external"),
        ("node.insert", "fresh.find", 11, find, "inferred"),  # new(node)
        ("node.insert", "node{}", 12, "router/tree.go:node", "exact"),  # lit := node{}
        ("node.insert", "lit.find", 13, find, "inferred"),  # node{}
        ("node.insert", "Pair", 14, "router/mux.go:Pair", "exact"),
        ("node.insert", "t.find", 15, find, "inferred"),  # first result of Pair
        ("node.insert", "m.Get", 16, "router/mux.go:Mux.Get", "inferred"),  # second
        ("node.insert", "n.children[].find", 17, find, "inferred"),  # an element of []*node
        # a type parameter T hides the package's type T; a parameter hides func Pair
        ("Map", "x.find", 23, "", "unresolved"),
        ("Map", "Pair", 24, "", "unresolved"),
        ("elements", "c.find", 33, find, "inferred"),  # range over a []*node field
        ("elements", "ns[].find", 35, find, "inferred"),  # type nodes []*node
        ("elements", "x.find", 38, find, "inferred"),  # range over a map's []*node values
        ("elements", "list[].find", 42, find, "inferred"),  # list, ok := tbl["a"]
        ("elements", "node{}", 44, "router/tree.go:node", "exact"),
        ("elements", "node{}.find", 44, find, "inferred"),  # (&node{}).find
        ("elements", "T{}", 45, "router/iface.go:T", "exact"),
        ("elements", "T{}.find", 45, "router/iface.go:T.find", "inferred"),
    ]


def test_interfaces_type_switches_and_depth(graph: CodeGraph) -> None:
    assert edges(graph, "router/iface.go") == [
        ("use", "r.Get", 38, "router/iface.go:Router.Get", "inferred"),
        ("use", "r.Match", 39, "router/iface.go:Routes.Match", "inferred"),  # embedded
        ("use", "v.Get", 42, "router/mux.go:Mux.Get", "inferred"),  # case *Mux
        ("use", "v.Match", 46, "router/iface.go:Routes.Match", "inferred"),  # two types: r's
        ("use", "d.Run", 48, "router/iface.go:B.Run", "inferred"),  # depth 1 beats depth 2
        ("use", "e.Run", 49, "router/iface.go:A.Run", "inferred"),  # depth 2
        ("use", "sh.Run", 50, "", "unresolved"),  # the field Run hides A.Run
        ("use", "ms[].Get", 51, "router/mux.go:Mux.Get", "inferred"),  # an element: not Muxes
        ("use", "ms.Get", 52, "router/mux.go:Muxes.Get", "inferred"),
    ]


def test_imports_closures_and_shadowing(graph: CodeGraph) -> None:
    assert edges(graph, "main.go") == [
        ("main", "router.NewMux", 10, "router/mux.go:NewMux", "exact"),
        ("main", "r.Get", 11, "router/mux.go:Mux.Get", "inferred"),
        ("main", "r.Route", 12, "router/mux.go:Mux.Route", "inferred"),
        ("main", "r.Get", 13, "router/iface.go:Router.Get", "inferred"),  # the closure's r
        ("main", "r.Get", 15, "router/mux.go:Mux.Get", "inferred"),  # the outer r again
        ("main", "fmt.Println", 16, "", "external"),
        ("main", "get", 17, "main.go:get", "exact"),
        ("main", "get", 19, "", "unresolved"),  # the local function value declared above
        ("main", "mux.Tree", 21, "router/mux.go:Mux.Tree", "inferred"),  # var mux router.Mux
    ]


def test_an_external_test_package_is_another_package(graph: CodeGraph) -> None:
    assert edges(graph, "router/mux_test.go") == [
        ("TestMux", "NewMux", 9, "router/mux_test.go:NewMux", "exact"),
        ("TestMux", "router.NewMux", 10, "router/mux.go:NewMux", "exact"),
        ("TestMux", "mx.Get", 11, "router/mux.go:Mux.Get", "inferred"),
    ]


def test_result_types_survive_stored_facts(tmp_path: Path) -> None:
    # main.go changed: its calls are resolved again against the stored facts of router/
    # (which keep Symbol.returns, not the signatures)
    graph = build(tmp_path, FILES)
    before = edges(graph, "main.go")
    (tmp_path / "main.go").write_text(MAIN + "\n// edited\n")
    graph.index(history=False)
    assert edges(graph, "main.go") == before


HOOKS = """package hooks

type Flusher interface{ Flush() }

type Writer struct{}

func (w *Writer) Flush() {}

type Header map[string][]string

func (h Header) Get(key string) string { return "" }

type grid [][]*Writer

func nop() {}

var testHook = nop

func use(v interface{}, g grid, byName map[string][]*Writer) {
	v.(Flusher).Flush()
	v.(*Writer).Flush()
	h := make(Header)
	h.Get("a")
	g[0][1].Flush()
	for _, row := range g {
		row[0].Flush()
	}
	for _, ws := range byName {
		ws[0].Flush()
	}
	ws := []*Writer{}
	ws[0].Flush()
	testHook()
	nop()
}

var handler = func(w *Writer) {
	w.Flush()
}

type set map[*Writer]struct{}

func keys(s set, m map[*Writer]int, ws []*Writer) {
	for w := range s {
		w.Flush()
	}
	for w, n := range m {
		w.Flush()
		_ = n
	}
	for w := range ws {
		_ = w
	}
}
"""


def test_assertions_make_nested_containers_function_values(tmp_path: Path) -> None:
    graph = build(tmp_path, {"go.mod": "module example.com/hooks\n\ngo 1.19\n", "hooks.go": HOOKS})
    flush = "hooks.go:Writer.Flush"
    assert edges(graph, "hooks.go") == [
        ("use", "v.(Flusher).Flush", 20, "hooks.go:Flusher.Flush", "inferred"),
        ("use", "v.(*Writer).Flush", 21, flush, "inferred"),
        ("use", "make", 22, "", "external"),
        ("use", "h.Get", 23, "hooks.go:Header.Get", "inferred"),  # make(Header)
        ("use", "g[][].Flush", 24, flush, "inferred"),  # type grid [][]*Writer
        ("use", "row[].Flush", 26, flush, "inferred"),
        ("use", "ws[].Flush", 29, flush, "inferred"),  # map[string][]*Writer
        ("use", "ws[].Flush", 32, flush, "inferred"),  # []*Writer{}
        ("use", "testHook", 33, "", "unresolved"),  # a variable: tests may set another
        ("use", "nop", 34, "hooks.go:nop", "exact"),
        ("", "w.Flush", 38, flush, "inferred"),  # a function literal at the top level
        ("keys", "w.Flush", 45, flush, "inferred"),  # the keys of a map[*Writer]struct{}
        ("keys", "w.Flush", 48, flush, "inferred"),
    ]


def test_build_tag_variants_are_unproven_but_for_their_own_file(tmp_path: Path) -> None:
    # dial_plan9.go and dial_posix.go both declare dialer.dial and listen (one is built per
    # GOOS): a call from a third file cannot tell which; a variant's own calls are its own
    variant = "package net\n\nfunc (d *dialer) dial() {}\n\nfunc listen() {}\n"
    graph = build(
        tmp_path,
        {
            "go.mod": "module example.com/net\n\ngo 1.19\n",
            "dial.go": "package net\n\ntype dialer struct{}\n\nfunc Dial(d *dialer) {\n"
            "\td.dial()\n\tlisten()\n}\n",
            "dial_plan9.go": variant,
            "dial_posix.go": variant + "\nfunc use(d *dialer) {\n\td.dial()\n\tlisten()\n}\n",
        },
    )
    assert edges(graph, "dial.go") == [
        ("Dial", "d.dial", 6, "", "unresolved"),
        ("Dial", "listen", 7, "", "unresolved"),
    ]
    assert edges(graph, "dial_posix.go") == [
        ("use", "d.dial", 8, "dial_posix.go:dialer.dial", "inferred"),
        ("use", "listen", 9, "dial_posix.go:listen", "exact"),
    ]


# the examples of the Go specification, "Composite literals" (go vet passes on them)
GEO = """package geo

type Point3D struct{ x, y, z float64 }

type Line struct{ p, q Point3D }

type Point struct{ x, y float64 }

type PPoint *Point

type Points []Point

type Pair[K comparable, V any] struct {
	k K
	v V
}

func literals() {
	primes := []int{2, 3, 5, 7, 9, 2147483647}
	origin := Point3D{}
	line := Line{origin, Point3D{y: -4, z: 12.3}}
	var pointer *Point3D = &Point3D{y: 1000}
	_ = [...]Point{{1.5, -3.5}, {0, 0}}
	_ = [][]Point{{{0, 1}, {1, 2}}}
	_ = map[string]Point{"orig": {0, 0}}
	_ = [2]PPoint{{1.5, -3.5}, {}}
	_ = Points{{1, 2}}
	_ = Pair[string, int]{k: "a", v: 1}
	_ = struct{ x int }{1}
	if x := 0.0; x == (Line{p: origin}.p.x) {
		_ = x
	}
	_, _, _ = primes, line, pointer
}

func Zero[S ~struct{ x, y float64 }]() S { return S{} }
"""

SHAPE = """package shape

import (
	"sync"

	"example.com/geo"
)

var Origin = &geo.Point{}

func Make() {
	type local struct{}
	_ = local{}
	_ = geo.Pair[int, geo.Point]{}
	_ = sync.WaitGroup{}
}
"""


def test_composite_literals_construct_their_struct_type(tmp_path: Path) -> None:
    graph = build(
        tmp_path,
        {"go.mod": "module example.com\n\ngo 1.19\n", "geo/geo.go": GEO, "shape/shape.go": SHAPE},
    )
    point3d, point = "geo/geo.go:Point3D", "geo/geo.go:Point"
    assert edges(graph, "geo/geo.go") == [
        ("literals", "Point3D{}", 20, point3d, "exact"),  # origin := Point3D{}
        ("literals", "Line{}", 21, "geo/geo.go:Line", "exact"),
        ("literals", "Point3D{}", 21, point3d, "exact"),  # an element
        ("literals", "Point3D{}", 22, point3d, "exact"),  # &Point3D{y: 1000}
        # lines 23-26: arrays, slices and maps of Point, their elided elements: no calls;
        # a named slice type constructs nothing to link
        ("literals", "Points{}", 27, "", "unresolved"),
        ("literals", "Pair{}", 28, "geo/geo.go:Pair", "exact"),  # instantiated generic
        # struct{ x int }{1}: no type named
        ("literals", "Line{}", 30, "geo/geo.go:Line", "exact"),  # (Line{p: origin}.p.x)
        # S{}: a type parameter's literal
    ]
    assert edges(graph, "shape/shape.go") == [
        ("", "geo.Point{}", 9, point, "exact"),  # a package variable's initialiser
        ("Make", "local{}", 13, "shape/shape.go:Make.local", "exact"),
        ("Make", "geo.Pair{}", 14, "geo/geo.go:Pair", "exact"),
        ("Make", "sync.WaitGroup{}", 15, "", "external"),
    ]
