// Go's own parser and type checker as an oracle of call edges, for `graph-eval`.
//
//	go run go_calls.go <repository root>   (file list on stdin)
//
// stdin: repository-relative paths of the .go files wit indexes, one a line. stdout: one
// JSON object per call expression whose callee is a name (`f(x)`, `T(x)`), a selector
// (`a.b.f(x)`), or either with explicit type arguments (`getTyped[bool](c, key)`):
//
//	{"file", "line", "byte", "callee", "receiver", "target"}
//
// with the meanings of ts_calls.mjs: `line` is the 0-based line of the call's start,
// `byte` its byte offset, `receiver` null for a plain call, else the receiver as wit's
// analyzer spells it (a name or chain of names, or "" for any other expression).
// `target` is what go/types says the called name is: null when it has no object for it;
// else {"file", "name", "line", "name_line", "external", "function", "kind"}, where
// `name` is `Recv.Name` for a method (the receiver's base type, without `*` or type
// arguments) or the plain name, `line` the 0-based line of the declaration's start and
// `name_line` of its name, `external` true when it is declared outside the given files
// (the standard library, a dependency, a builtin), `function` true for a function or a
// concrete method, and `kind` one of `func`, `method`, `interface-method` (a method of an
// interface: the implementation that runs is not known), `conversion` (the callee is a
// type: the Go spec makes `T(x)` a conversion, not a call), `builtin`, `var` (a variable,
// field or parameter of function type).
//
// Each directory is one package (its `_test.go` files of another package name apart),
// parsed with go/parser and checked with go/types; imports of the repository's own
// packages are found by the longest suffix of the import path (as wit does) and checked
// from their sources, the standard library comes from the toolchain, and anything else
// is reported missing and checked around (go/types goes on after errors).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type target struct {
	File     string `json:"file"`
	Name     string `json:"name"`
	Line     int    `json:"line"`
	NameLine int    `json:"name_line"`
	External bool   `json:"external"`
	Function bool   `json:"function"`
	Kind     string `json:"kind"`
}

type site struct {
	File     string  `json:"file"`
	Line     int     `json:"line"`
	Byte     int     `json:"byte"`
	Callee   string  `json:"callee"`
	Receiver *string `json:"receiver"`
	Target   *target `json:"target"`
}

// A package of the repository: its directory, its files (one package name) and, once
// checked, its types.
type pkg struct {
	dir     string
	name    string
	files   []*ast.File
	rels    []string
	checked *types.Package
	info    *types.Info
	busy    bool
}

type oracle struct {
	root  string
	fset  *token.FileSet
	pkgs  map[string]*pkg // by directory
	order []*pkg
	std   types.Importer
	// Declaration start of every function of the given files, by its name's position.
	decls map[token.Pos]token.Pos
	// The given files, by absolute path.
	given map[string]string
	// The module path of the root's go.mod, if any.
	module string
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run go_calls.go <repository root> < files")
		os.Exit(2)
	}
	root, err := filepath.Abs(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	o := &oracle{
		root:  root,
		fset:  token.NewFileSet(),
		pkgs:  map[string]*pkg{},
		decls: map[token.Pos]token.Pos{},
		given: map[string]string{},
	}
	o.std = importer.ForCompiler(o.fset, "gc", nil)
	if mod, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
		for _, line := range strings.Split(string(mod), "\n") {
			if line := strings.TrimSpace(line); strings.HasPrefix(line, "module ") {
				o.module = strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "module ")), `"`)
				break
			}
		}
	}
	scanner := bufio.NewScanner(os.Stdin)
	var rels []string
	for scanner.Scan() {
		if rel := strings.TrimSpace(scanner.Text()); rel != "" {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	for _, rel := range rels {
		o.parse(rel)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	count := 0
	for _, p := range o.order {
		o.check(p)
		for i, f := range p.files {
			count += o.sites(out, p, p.rels[i], f)
		}
	}
	fmt.Fprintf(os.Stderr, "go_calls: %d call sites in %d packages\n", count, len(o.order))
}

// parse adds one file to its directory's package (a file of a second package name in the
// directory, an external `_test` package, gets a package of its own).
func (o *oracle) parse(rel string) {
	path := filepath.Join(o.root, rel)
	f, err := parser.ParseFile(o.fset, path, nil, parser.SkipObjectResolution)
	if f == nil {
		fmt.Fprintf(os.Stderr, "go_calls: %s: not parsed (%v)\n", rel, err)
		return
	}
	o.given[path] = rel
	dir := filepath.Dir(rel)
	key := dir + "\x00" + f.Name.Name
	p := o.pkgs[key]
	if p == nil {
		p = &pkg{dir: dir, name: f.Name.Name}
		o.pkgs[key] = p
		o.order = append(o.order, p)
	}
	p.files = append(p.files, f)
	p.rels = append(p.rels, rel)
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			o.decls[fd.Name.Pos()] = fd.Pos()
		}
	}
}

// check type-checks a package once (errors are expected where dependencies are missing,
// and ignored: what can be typed still is).
func (o *oracle) check(p *pkg) *types.Package {
	if p.checked != nil || p.busy {
		return p.checked
	}
	p.busy = true
	p.info = &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances:  map[*ast.Ident]types.Instance{},
	}
	config := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) { return o.importPath(path) }),
		Error:    func(error) {},
	}
	checked, _ := config.Check(p.dir, o.fset, p.files, p.info)
	p.checked = checked
	p.busy = false
	return checked
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// importPath finds an import among the repository's packages, else in the toolchain's
// standard library: under the module path of the root's go.mod, the directory it names;
// otherwise (no go.mod, another module) the directory matching the longest suffix of the
// path, at least its last segment, for a path whose first segment is a domain (the
// standard library's never is). `_test` packages are never imported.
func (o *oracle) importPath(path string) (*types.Package, error) {
	if p := o.repoPackage(path); p != nil {
		if checked := o.check(p); checked != nil {
			return checked, nil
		}
	}
	return o.std.Import(path)
}

func (o *oracle) repoPackage(path string) *pkg {
	find := func(dir string) *pkg {
		for _, p := range o.order {
			if p.dir == dir && !strings.HasSuffix(p.name, "_test") {
				return p
			}
		}
		return nil
	}
	if o.module != "" {
		if path == o.module {
			return find(".")
		}
		if strings.HasPrefix(path, o.module+"/") {
			return find(filepath.FromSlash(strings.TrimPrefix(path, o.module+"/")))
		}
	}
	segments := strings.Split(path, "/")
	if !strings.Contains(segments[0], ".") {
		return nil
	}
	var best *pkg
	bestLen := 0
	for _, p := range o.order {
		if strings.HasSuffix(p.name, "_test") {
			continue
		}
		parts := strings.Split(filepath.ToSlash(p.dir), "/")
		n := 0
		for n < len(segments) && n < len(parts) && segments[len(segments)-1-n] == parts[len(parts)-1-n] {
			n++
		}
		if n > bestLen {
			best, bestLen = p, n
		}
	}
	return best
}

// sites writes every call site of one file.
func (o *oracle) sites(out *bufio.Writer, p *pkg, rel string, f *ast.File) int {
	count := 0
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun := call.Fun
		// `f[T](x)`, `f[T, U](x)`: the called name is inside the index expression.
		switch ix := fun.(type) {
		case *ast.IndexExpr:
			fun = ix.X
		case *ast.IndexListExpr:
			fun = ix.X
		}
		var name *ast.Ident
		var receiver *string
		switch fn := fun.(type) {
		case *ast.Ident:
			name = fn
		case *ast.SelectorExpr:
			name = fn.Sel
			r := receiverText(fn.X)
			receiver = &r
		default:
			return true
		}
		start := o.fset.Position(call.Pos())
		s := site{
			File:     rel,
			Line:     start.Line - 1,
			Byte:     start.Offset,
			Callee:   name.Name,
			Receiver: receiver,
			Target:   o.target(p, call.Fun, name),
		}
		line, _ := json.Marshal(s)
		out.Write(line)
		out.WriteByte('\n')
		count++
		return true
	})
	return count
}

// target is what the called name denotes.
func (o *oracle) target(p *pkg, fun ast.Expr, name *ast.Ident) *target {
	if p.info == nil {
		return nil
	}
	if tv, ok := p.info.Types[fun]; ok && tv.IsType() {
		return o.describe(p.info.Uses[name], "conversion")
	}
	obj := p.info.Uses[name]
	switch obj := obj.(type) {
	case *types.Func:
		kind := "func"
		if sig, ok := obj.Type().(*types.Signature); ok && sig.Recv() != nil {
			kind = "method"
			if types.IsInterface(sig.Recv().Type()) {
				kind = "interface-method"
			}
		}
		return o.describe(obj.Origin(), kind)
	case *types.Builtin:
		return &target{File: "builtin", Name: obj.Name(), External: true, Kind: "builtin"}
	case *types.Var:
		return o.describe(obj.Origin(), "var")
	case *types.TypeName:
		return o.describe(obj, "conversion")
	case nil:
		return nil
	default:
		return o.describe(obj, "other")
	}
}

// describe makes the target of a declared object.
func (o *oracle) describe(obj types.Object, kind string) *target {
	if obj == nil {
		return nil
	}
	t := &target{Name: qualified(obj), Kind: kind}
	t.Function = kind == "func" || kind == "method"
	pos := o.fset.Position(obj.Pos())
	rel, ok := o.given[pos.Filename]
	if !obj.Pos().IsValid() || !ok {
		t.External = true
		if obj.Pkg() != nil {
			t.File = obj.Pkg().Path()
		} else {
			t.File = "builtin"
		}
		return t
	}
	t.File = rel
	t.NameLine = pos.Line - 1
	t.Line = t.NameLine
	if start, ok := o.decls[obj.Pos()]; ok {
		t.Line = o.fset.Position(start).Line - 1
	}
	return t
}

// qualified is `Recv.Name` for a method, else the object's name.
func qualified(obj types.Object) string {
	fn, ok := obj.(*types.Func)
	if !ok {
		return obj.Name()
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return fn.Name()
	}
	t := sig.Recv().Type()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if named, ok := t.(*types.Named); ok {
		return named.Obj().Name() + "." + fn.Name()
	}
	return fn.Name()
}

// receiverText spells a receiver as wit's analyzer does: a name or a chain of names
// (`c`, `c.engine`), else "".
func receiverText(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		if inner := receiverText(x.X); inner != "" {
			return inner + "." + x.Sel.Name
		}
	}
	return ""
}
