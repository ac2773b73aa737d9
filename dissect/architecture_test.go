package dissect

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The module's layers, top to bottom (see the package comment): a
// package imports only packages of its own layer or below.
func layer(pkg string) int {
	top, _, _ := strings.Cut(pkg, "/")
	switch top {
	case "cmd":
		return 0
	case "report":
		return 1
	case "dissect":
		return 2
	case "transport", "checksum", "cipher":
		return 3
	}
	return -1
}

// reportRank orders the report packages: one imports only report
// packages of a lower rank. Generators stand on analyses, analyses on
// the filter and the renderers, and those on nothing in report. A report
// package not listed has rank 0: it imports no other report package.
// Commands (build tools under cmd/) are left out.
var reportRank = map[string]int{
	"report/jsonkeys":   1,
	"report/render":     1,
	"report/query":      2,
	"report/record":     2,
	"report/stats":      2,
	"report/columnar":   3,
	"report/diff":       3,
	"report/profile":    3,
	"report/story":      3,
	"report/htmlreport": 4,
	"report/replay":     4,
	"report/wireshark":  4,

	// Generators of source: recordgen writes report/record's structs
	// from the key table.
	"report/internal/recordgen": 2,
}

// testSupport are packages only tests and their own commands import.
var testSupport = []string{"dissect/dissecttest", "transport/transporttest"}

// TestImportsPointOneWay: imports run cmd -> report -> dissect ->
// transport/checksum/cipher, never back, and within report from
// generators to analyses to the filter and renderers. It reads the
// imports of every package's non-test files.
func TestImportsPointOneWay(t *testing.T) {
	const module = "github.com/bcdump/bcdump/"
	imports := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != ".." && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, ".."+string(filepath.Separator))))
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(p, module); ok {
				imports[pkg][dep] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 20 {
		t.Fatalf("found %d packages: the walk missed the module", len(imports))
	}
	for pkg, deps := range imports {
		if layer(pkg) < 0 {
			t.Errorf("%s: a top-level folder the layers do not know", pkg)
			continue
		}
		rank := reportRank[pkg]
		inReport := layer(pkg) == 1 && !strings.Contains(pkg, "/cmd/")
		for dep := range deps {
			switch {
			case layer(dep) < layer(pkg):
				t.Errorf("%s imports %s: imports point down, from cmd to report to dissect to transport, checksum and cipher", pkg, dep)
			case inReport && layer(dep) == 1 && reportRank[dep] >= rank && dep != pkg:
				t.Errorf("%s imports %s: within report, imports point from generators to analyses to the filter and renderers", pkg, dep)
			}
			for _, ts := range testSupport {
				if (dep == ts || strings.HasPrefix(dep, ts+"/")) && !strings.HasPrefix(pkg, ts) && !strings.HasPrefix(pkg, "dissect/dissecttest") {
					t.Errorf("%s imports %s, which is test support", pkg, dep)
				}
			}
		}
	}
}
