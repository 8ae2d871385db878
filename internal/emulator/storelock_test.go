package emulator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 11, point 6: the store's lock is the store's business. Only the
// store's own methods and the committer, which runs a change under it, take
// it; the HTTP and control layers call store methods instead.
func TestOnlyStoreAndCommitterTakeStoreLock(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{"store.go": true, "commit.go": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || allowed[name] {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "mu" {
				return true
			}
			if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "store" {
				t.Errorf("%s: takes the store's lock directly; add a store method instead", fset.Position(sel.Pos()))
			}
			return true
		})
	}
}
