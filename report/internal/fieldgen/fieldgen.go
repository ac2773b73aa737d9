// Package fieldgen writes report's table of game fields (gamefields_gen.go)
// from the decoders' source: the names and kinds of the fields that
// dissect/game's opcode decoders and dissect's control-message decoder
// append with game.Fields (Uint, String, Hash, ...) or with the helpers
// that wrap those calls, and the opcodes or message types whose decoders
// append them.
//
// The decoders have no declarative table of their fields; this reads them
// with go/ast instead, so the table cannot miss a field name written as a
// literal, and a name that is not a literal is an error rather than a
// silent gap. report's tests check that the committed file is what
// Generate writes and that every field a decoded capture shows is in it.
package fieldgen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bcdump/bcdump/dissect/game"
)

// appenders are game.Fields' methods that append a named field, by the
// kind they append.
var appenders = map[string]string{
	"Uint": "uint", "Int": "int", "Float": "float", "Bool": "bool",
	"String": "string", "Hash": "hash", "Hex": "hex", "Bytes": "bytes",
	"Vec": "vec", "Object": "object", "Array": "array",
}

// Field is one field name with what the decoders append under it.
type Field struct {
	Name  string
	Kinds []string // sorted, distinct
	In    []string // opcodes or message types, sorted
}

// pkg is one parsed package.
type pkg struct {
	name  string
	files []*ast.File
	funcs map[string]*ast.FuncDecl // "f" or "T.m"
}

// Extract reads the decoders in the game package directory and the
// dissect package directory and returns their fields, sorted by name.
func Extract(gameDir, dissectDir string) ([]Field, error) {
	fset := token.NewFileSet()
	var all []*pkg
	for _, dir := range []string{gameDir, dissectDir} {
		p, err := parseDir(fset, dir)
		if err != nil {
			return nil, err
		}
		all = append(all, p)
	}
	wrappers := findWrappers(all[0])
	byName := map[string]*Field{}
	for _, p := range all {
		labels := labelFuncs(p)
		for key, fd := range p.funcs {
			if err := collect(fset, p, key, fd, wrappers, labels, byName); err != nil {
				return nil, err
			}
		}
	}
	out := make([]Field, 0, len(byName))
	for _, f := range byName {
		sort.Strings(f.Kinds)
		f.Kinds = slices.Compact(f.Kinds)
		sort.Strings(f.In)
		f.In = slices.Compact(f.In)
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func parseDir(fset *token.FileSet, dir string) (*pkg, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	p := &pkg{funcs: map[string]*ast.FuncDecl{}}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.name = f.Name.Name
		p.files = append(p.files, f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				p.funcs[funcKey(fd)] = fd
			}
		}
	}
	if len(p.files) == 0 {
		return nil, fmt.Errorf("fieldgen: no Go files in %s", dir)
	}
	return p, nil
}

func funcKey(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return recvType(fd.Recv.List[0].Type) + "." + fd.Name.Name
}

func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvType(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvType(t.X)
	}
	return ""
}

// findWrappers finds the helpers (fieldReader.u8, .str16, ...) whose first
// parameter, name, they pass on as a field name to an appender or to
// another helper: method name -> kind.
func findWrappers(p *pkg) map[string]string {
	w := map[string]string{}
	for changed := true; changed; {
		changed = false
		for _, fd := range p.funcs {
			if _, done := w[fd.Name.Name]; done || !firstParamIsName(fd) {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				if id, ok := call.Args[0].(*ast.Ident); !ok || id.Name != "name" {
					return true
				}
				if kind, ok := kindOf(call, w); ok {
					w[fd.Name.Name] = kind
					changed = true
					return false
				}
				return true
			})
		}
	}
	return w
}

func firstParamIsName(fd *ast.FuncDecl) bool {
	ps := fd.Type.Params.List
	if len(ps) == 0 || len(ps[0].Names) == 0 || ps[0].Names[0].Name != "name" {
		return false
	}
	id, ok := ps[0].Type.(*ast.Ident)
	return ok && id.Name == "string"
}

// kindOf says whether call appends a named field, and of what kind.
func kindOf(call *ast.CallExpr, wrappers map[string]string) (string, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || len(call.Args) < 2 && wrappers[sel.Sel.Name] == "" {
		return "", false
	}
	if k, ok := appenders[sel.Sel.Name]; ok && len(call.Args) >= 2 {
		return k, true
	}
	k, ok := wrappers[sel.Sel.Name]
	return k, ok
}

// collect adds the fields fd appends.
func collect(fset *token.FileSet, p *pkg, key string, fd *ast.FuncDecl, wrappers map[string]string,
	labels map[string][]string, byName map[string]*Field) error {
	var err error
	inWrapper := firstParamIsName(fd) && wrappers[fd.Name.Name] != ""
	var cases []string // labels of the enclosing case clauses
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		if err != nil {
			return false
		}
		if cc, ok := n.(*ast.CaseClause); ok {
			saved := cases
			cases = append(slices.Clone(cases), caseLabels(cc)...)
			for _, s := range cc.Body {
				ast.Inspect(s, walk)
			}
			cases = saved
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		kind, ok := kindOf(call, wrappers)
		if !ok {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			if id, isID := call.Args[0].(*ast.Ident); inWrapper && isID && id.Name == "name" {
				return true
			}
			// Reject only calls that look like field appends: a selector
			// on something other than a Reader (d.r.Bytes(n) reads).
			if sel := call.Fun.(*ast.SelectorExpr); isReader(sel) {
				return true
			}
			err = fmt.Errorf("fieldgen: %s: %s appends a field whose name is not a string literal; the field table cannot list it",
				fset.Position(call.Pos()), key)
			return false
		}
		name, uerr := strconv.Unquote(lit.Value)
		if uerr != nil || name == "" {
			return true // array elements have no name
		}
		f := byName[name]
		if f == nil {
			f = &Field{Name: name}
			byName[name] = f
		}
		f.Kinds = append(f.Kinds, kind)
		if len(cases) > 0 && p.name == "dissect" {
			f.In = append(f.In, cases...)
		} else {
			f.In = append(f.In, labels[key]...)
		}
		return true
	}
	ast.Inspect(fd.Body, walk)
	return err
}

// isReader reports whether sel reads (d.r.Bytes, r.String16) rather than
// appends: its receiver is a field or variable named r.
func isReader(sel *ast.SelectorExpr) bool {
	switch x := sel.X.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == "r"
	case *ast.Ident:
		return x.Name == "r"
	}
	return false
}

// caseLabels names a case clause's values transport.TypeConnect ->
// "Connect".
func caseLabels(cc *ast.CaseClause) []string {
	var out []string
	for _, e := range cc.List {
		if sel, ok := e.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Type") {
			out = append(out, strings.TrimPrefix(sel.Sel.Name, "Type"))
		}
	}
	return out
}

// labelFuncs maps each function of the game package to the names of the
// opcodes whose decoders reach it: the registered decoder itself, the
// functions it calls, and the methods of the types it builds (callbacks).
func labelFuncs(p *pkg) map[string][]string {
	if p.name != "game" {
		return nil
	}
	decoders := map[string][]string{} // decoder function -> opcode names
	for code := range 256 {
		op := game.Lookup(uint8(code))
		if op.Decode == nil {
			continue
		}
		fn := runtime.FuncForPC(reflect.ValueOf(op.Decode).Pointer()).Name()
		fn = fn[strings.LastIndexByte(fn, '.')+1:]
		decoders[fn] = append(decoders[fn], op.Name)
	}
	methods := map[string][]string{} // type -> method keys
	for key := range p.funcs {
		if t, _, ok := strings.Cut(key, "."); ok {
			methods[t] = append(methods[t], key)
		}
	}
	refs := map[string][]string{}
	for key, fd := range p.funcs {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			if _, ok := p.funcs[id.Name]; ok {
				refs[key] = append(refs[key], id.Name)
			}
			refs[key] = append(refs[key], methods[id.Name]...)
			return true
		})
	}
	labels := map[string][]string{}
	for dec, ops := range decoders {
		seen := map[string]bool{}
		stack := []string{dec}
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[k] {
				continue
			}
			seen[k] = true
			labels[k] = append(labels[k], ops...)
			stack = append(stack, refs[k]...)
		}
	}
	return labels
}

// Generate returns the source of gamefields_gen.go.
func Generate(gameDir, dissectDir string) ([]byte, error) {
	fields, err := Extract(gameDir, dissectDir)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`// Code generated by report/internal/fieldgen from the decoders in dissect and dissect/game; DO NOT EDIT.

package query

// gameFields are the fields the decoders append, by name: the kinds they
// append under it and the opcodes or message types whose decoders do.
var gameFields = []gameField{
`)
	for _, f := range fields {
		fmt.Fprintf(&b, "\t{%q, %q, %q},\n", f.Name, strings.Join(f.Kinds, ","), strings.Join(f.In, ","))
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
