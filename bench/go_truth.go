// Ground truth for bench/codegraph_accuracy.py --go: go/types itself type-checks the
// repository's .go files (the paths come on stdin, one a line, relative to the working
// directory) and prints, tab-separated:
//
//	D  path  start  end  kind  name                      every function, method, type and
//	                                                     interface method
//	C  path  line  nameLine  name  tpath  tstart  tend   every call whose callee go/types
//	                                                     resolves to a function, method,
//	                                                     interface method or type (a
//	                                                     conversion) declared in those files
//	X  path  line  nameLine  name                        a call resolved outside them (the
//	                                                     standard library, a builtin)
//	E  count                                             type errors (a dependency outside
//	                                                     the repository; calls through it
//	                                                     are left out)
//
// Packages are the directories' files by package clause (a test file's package: its
// directory's files of that package; an external test package imports the package). An
// import under the module path of one of the repository's go.mod files is the repository's
// directory (the longest module path wins); the standard library comes from the toolchain's
// export data; anything else fails to import and counts as errors. Files the go tool leaves
// out here (under testdata/, or excluded by build constraints for this GOOS and GOARCH) are
// in no set. Lines are 1-based; a call
// of a function value (a variable, a parameter, a field of function type) is in no set.
// Built at bench time into a temporary directory; nothing here is committed output.
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type span struct{ start, end int }

type pkgKey struct{ dir, name string }

type checker struct {
	fset     *token.FileSet
	files    map[pkgKey][]*ast.File
	paths    map[*ast.File]string
	modules  map[string]string // module path -> directory
	checked  map[string]*types.Package
	std      types.Importer
	errors   int
	decls    map[string]span // "path:line:col" of a declared name -> the declaration's lines
	inRepo   map[string]bool
	out      *bufio.Writer
	infos    []*types.Info
	infoPkgs [][]*ast.File
}

var moduleLine = regexp.MustCompile(`(?m)^\s*module\s+"?([^\s"]+)"?`)

func main() {
	c := &checker{
		fset:    token.NewFileSet(),
		files:   map[pkgKey][]*ast.File{},
		paths:   map[*ast.File]string{},
		modules: map[string]string{},
		checked: map[string]*types.Package{},
		std:     nil,
		decls:   map[string]span{},
		inRepo:  map[string]bool{},
		out:     bufio.NewWriter(os.Stdout),
	}
	c.std = importer.ForCompiler(c.fset, "gc", nil) // positions in the same file set
	defer c.out.Flush()
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		path := strings.TrimSpace(scanner.Text())
		if path != "" {
			c.parse(path)
		}
	}
	c.readModules()
	keys := make([]pkgKey, 0, len(c.files))
	for k := range c.files {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].dir != keys[j].dir {
			return keys[i].dir < keys[j].dir
		}
		return keys[i].name < keys[j].name
	})
	for _, k := range keys {
		c.checkAll(k)
	}
	for i, info := range c.infos {
		for _, f := range c.infoPkgs[i] {
			c.calls(f, info)
		}
	}
	fmt.Fprintf(c.out, "E\t%d\n", c.errors)
}

// ignored is what the go tool leaves out of every package built here: testdata
// directories, and files whose build constraints (//go:build, _linux.go...) exclude them
// for this machine's GOOS and GOARCH.
func ignored(path string) bool {
	for _, part := range strings.Split(filepath.ToSlash(path), "/") {
		if part == "testdata" {
			return true
		}
	}
	match, err := build.Default.MatchFile(filepath.Dir(path), filepath.Base(path))
	return err != nil || !match
}

func (c *checker) parse(path string) {
	if ignored(path) {
		return
	}
	f, err := parser.ParseFile(c.fset, path, nil, parser.SkipObjectResolution)
	if f == nil {
		c.errors++
		return
	}
	if err != nil {
		c.errors++
	}
	c.inRepo[path] = true
	c.paths[f] = path
	k := pkgKey{filepath.Dir(path), f.Name.Name}
	c.files[k] = append(c.files[k], f)
	c.declare(f, path)
}

// declare prints the D rows of a file and remembers each declared name's span.
func (c *checker) declare(f *ast.File, path string) {
	note := func(name *ast.Ident, node ast.Node, kind string) {
		s := span{c.line(node.Pos()), c.line(node.End())}
		c.decls[c.key(name.Pos())] = s
		fmt.Fprintf(c.out, "D\t%s\t%d\t%d\t%s\t%s\n", path, s.start, s.end, kind, name.Name)
	}
	ast.Inspect(f, func(n ast.Node) bool { // types declared inside functions too
		switch d := n.(type) {
		case *ast.FuncDecl:
			kind := "function"
			if d.Recv != nil {
				kind = "method"
			}
			note(d.Name, d, kind)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				node := ast.Node(ts)
				if len(d.Specs) == 1 {
					node = d
				}
				kind := "type"
				switch t := ts.Type.(type) {
				case *ast.StructType:
					kind = "struct"
				case *ast.InterfaceType:
					kind = "interface"
					for _, m := range t.Methods.List {
						if _, ok := m.Type.(*ast.FuncType); ok && len(m.Names) == 1 {
							note(m.Names[0], m, "method")
						}
					}
				}
				note(ts.Name, node, kind)
			}
		}
		return true
	})
}

func (c *checker) readModules() {
	dirs := map[string]bool{}
	for k := range c.files {
		for d := k.dir; ; d = filepath.Dir(d) {
			dirs[d] = true
			if d == "." || d == "/" {
				break
			}
		}
	}
	for d := range dirs {
		raw, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err != nil {
			continue
		}
		if m := moduleLine.FindSubmatch(raw); m != nil {
			c.modules[string(m[1])] = d
		}
	}
}

// dirOf is the repository directory an import path names, "" outside the repository.
func (c *checker) dirOf(importPath string) string {
	best, dir := "", ""
	for mod, d := range c.modules {
		if (importPath == mod || strings.HasPrefix(importPath, mod+"/")) && len(mod) > len(best) {
			best, dir = mod, filepath.Join(d, strings.TrimPrefix(importPath[len(mod):], "/"))
		}
	}
	return dir
}

// Import makes the checker a types.Importer: the repository's package of a directory (its
// non-test files), else the standard library.
func (c *checker) Import(importPath string) (*types.Package, error) {
	dir := c.dirOf(importPath)
	if dir == "" {
		return c.std.Import(importPath)
	}
	if pkg, ok := c.checked[dir]; ok {
		if pkg == nil {
			return nil, fmt.Errorf("import cycle through %s", importPath)
		}
		return pkg, nil
	}
	c.checked[dir] = nil
	var files []*ast.File
	for k, fs := range c.files {
		if k.dir != dir || strings.HasSuffix(k.name, "_test") {
			continue
		}
		for _, f := range fs {
			if !strings.HasSuffix(c.paths[f], "_test.go") {
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no files for %s", importPath)
	}
	pkg, _ := c.check(importPath, files, false)
	c.checked[dir] = pkg
	return pkg, nil
}

// check type-checks files as one package; record: keep its Info for the call rows.
func (c *checker) check(path string, files []*ast.File, record bool) (*types.Package, *types.Info) {
	info := &types.Info{
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Types:      map[ast.Expr]types.TypeAndValue{},
	}
	conf := types.Config{Importer: c, Error: func(err error) {
		c.errors++
		fmt.Fprintln(os.Stderr, err)
	}}
	sort.Slice(files, func(i, j int) bool { return c.paths[files[i]] < c.paths[files[j]] })
	pkg, _ := conf.Check(path, c.fset, files, info)
	if record {
		c.infos = append(c.infos, info)
		c.infoPkgs = append(c.infoPkgs, files)
	}
	return pkg, info
}

// checkAll type-checks a directory's package with its test files (an external test package
// alone), for the call rows of every file.
func (c *checker) checkAll(k pkgKey) {
	files := append([]*ast.File(nil), c.files[k]...)
	c.check(k.dir+"#"+k.name, files, true)
}

func (c *checker) calls(f *ast.File, info *types.Info) {
	path := c.paths[f]
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun := unparen(call.Fun)
		switch x := fun.(type) {
		case *ast.IndexExpr:
			fun = x.X
		case *ast.IndexListExpr:
			fun = x.X
		}
		var name *ast.Ident
		var obj types.Object
		switch x := fun.(type) {
		case *ast.Ident:
			name, obj = x, info.Uses[x]
		case *ast.SelectorExpr:
			name = x.Sel
			if sel := info.Selections[x]; sel != nil {
				obj = sel.Obj()
			} else {
				obj = info.Uses[x.Sel]
			}
		default:
			return true
		}
		line, nameLine := c.line(call.Pos()), c.line(name.Pos())
		switch o := obj.(type) {
		case *types.Builtin:
			fmt.Fprintf(c.out, "X\t%s\t%d\t%d\t%s\n", path, line, nameLine, name.Name)
		case *types.Func:
			c.target(path, line, nameLine, name.Name, o.Origin().Pos())
		case *types.TypeName:
			c.target(path, line, nameLine, name.Name, o.Pos())
		}
		return true
	})
}

func (c *checker) target(path string, line, nameLine int, name string, pos token.Pos) {
	if !pos.IsValid() {
		fmt.Fprintf(c.out, "X\t%s\t%d\t%d\t%s\n", path, line, nameLine, name)
		return
	}
	at := c.fset.Position(pos)
	s, declared := c.decls[c.key(pos)]
	if !c.inRepo[at.Filename] {
		fmt.Fprintf(c.out, "X\t%s\t%d\t%d\t%s\n", path, line, nameLine, name)
		return
	}
	if !declared { // not one of the declarations noted from those files
		return
	}
	fmt.Fprintf(c.out, "C\t%s\t%d\t%d\t%s\t%s\t%d\t%d\n", path, line, nameLine, name,
		at.Filename, s.start, s.end)
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

func (c *checker) line(pos token.Pos) int { return c.fset.Position(pos).Line }

func (c *checker) key(pos token.Pos) string {
	p := c.fset.Position(pos)
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}
