package state

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// maxFileLines bounds a file: a file is one concept of the package, and a
// concept that outgrows it is two.
const maxFileLines = 350

// parsedFiles are the package's non-test files in dir, by name, and in a list.
func parsedFiles(t *testing.T, dir string) (files map[string]*ast.File, list []*ast.File, fset *token.FileSet) {
	t.Helper()
	fset = token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(name)] = f
		list = append(list, f)
	}
	return files, list, fset
}

// typeChecksSkipped says why -short (make test's race stage) leaves out the
// checks that type-check the package.
const typeChecksSkipped = "type-checks the package and its imports from source, where the race detector finds nothing: the plain run makes it"

// sourceImports type-checks the package's imports (bbolt, msgpack and the
// standard library packages) from source once per test binary, for every
// check that type-checks the package: a source importer keeps what it
// imported, and takes seconds to import it. It is not safe for concurrent
// use: fileUses holds the lock while the check runs.
var sourceImports = struct {
	sync.Mutex
	importer types.Importer
}{importer: importer.ForCompiler(token.NewFileSet(), "source", nil)}

// fileUses are the package's non-test files and, for each, the other files
// whose declarations (package-level names, methods and fields) it uses.
func fileUses(t *testing.T, dir string) (files map[string]*ast.File, fset *token.FileSet, uses map[string]map[string]bool) {
	t.Helper()
	files, list, fset := parsedFiles(t, dir)
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: sourceImports.importer}
	sourceImports.Lock()
	pkg, err := conf.Check("state", fset, list, info)
	sourceImports.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	uses = map[string]map[string]bool{}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != pkg || !declaredForAll(pkg, obj) {
			continue
		}
		from, to := filepath.Base(fset.Position(id.Pos()).Filename), filepath.Base(fset.Position(obj.Pos()).Filename)
		if from == to {
			continue
		}
		if uses[from] == nil {
			uses[from] = map[string]bool{}
		}
		uses[from][to] = true
	}
	return files, fset, uses
}

// declaredForAll: a package-level name, a method or a field, not a local.
func declaredForAll(pkg *types.Package, obj types.Object) bool {
	if obj.Parent() == pkg.Scope() {
		return true
	}
	switch o := obj.(type) {
	case *types.Func:
		return true
	case *types.Var:
		return o.IsField()
	}
	return false
}

// layerOrder orders files from the bottom up, each after every file it
// uses, and among files free at once by name: the package's layers,
// computed from what each file uses. It fails when files use each other,
// directly or around a cycle, for then there are no layers.
func layerOrder(files map[string]*ast.File, uses map[string]map[string]bool) ([]string, error) {
	var order []string
	placed := map[string]bool{}
	for len(placed) < len(files) {
		var free []string
		for name := range files {
			if placed[name] {
				continue
			}
			ready := true
			for to := range uses[name] {
				if !placed[to] {
					ready = false
				}
			}
			if ready {
				free = append(free, name)
			}
		}
		if len(free) == 0 {
			var left []string
			for name := range files {
				if !placed[name] {
					left = append(left, name)
				}
			}
			slices.Sort(left)
			return order, fmt.Errorf("no layers: among %v, each file uses another of them", left)
		}
		slices.Sort(free)
		for _, name := range free {
			placed[name] = true
		}
		order = append(order, free...)
	}
	return order, nil
}

// The files are in layers, computed from their uses (layerOrder), and no
// file is over maxFileLines, and the package doc says what each file
// holds. `go test -v -run Layout` prints the layers.
func TestLayout_filesInLayers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip(typeChecksSkipped)
	}
	files, fset, uses := fileUses(t, ".")
	for name := range files {
		if lines := fset.File(files[name].Pos()).LineCount(); lines > maxFileLines {
			t.Errorf("%s has %d lines, over %d", name, lines, maxFileLines)
		}
	}
	for name := range files {
		if doc := files["doc.go"].Doc.Text(); name != "doc.go" && !strings.Contains(doc, "  - "+name+": ") {
			t.Errorf("the package's doc (doc.go) does not say what %s holds", name)
		}
	}
	order, err := layerOrder(files, uses)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("layers, from the bottom: %s", strings.Join(order, ", "))
}

// Every method is in its type's file: the type's concept holds its
// behaviour, as bbolt keeps Tx's methods in tx.go.
func TestLayout_methodsBesideTheirType(t *testing.T) {
	t.Parallel()
	files, _, _ := parsedFiles(t, ".")
	typeFile := map[string]string{}
	for name, f := range files {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, s := range gd.Specs {
					typeFile[s.(*ast.TypeSpec).Name.Name] = name
				}
			}
		}
	}
	for name, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
				if typ := receiverName(fd.Recv.List[0].Type); typeFile[typ] != name {
					t.Errorf("%s: method %s.%s is not in %s, its type's file", name, typ, fd.Name.Name, typeFile[typ])
				}
			}
		}
	}
}

func receiverName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverName(x.X)
	case *ast.IndexExpr:
		return receiverName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// The checks above fail on what they forbid: a pair of files that use
// each other leaves no layers.
func TestLayout_checksFailOnBreakage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip(typeChecksSkipped)
	}
	dir := t.TempDir()
	names, _ := filepath.Glob("*.go")
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "records.go" { // the bottom layer, made to use the top
			b = append(b, []byte("\nvar _ = (*Store).Close\n")...)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	files, _, uses := fileUses(t, dir)
	if !uses["records.go"]["store.go"] {
		t.Fatal("a use of the top layer from the bottom one went unseen")
	}
	if order, err := layerOrder(files, uses); err == nil {
		t.Fatalf("layers %v found in files that use each other", order)
	}
}
