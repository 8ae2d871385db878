package state

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layers is the package's files from the bottom up: a file uses only
// files before it. A new file goes where its uses put it.
var layers = []string{
	"doc.go", "values.go",
	"plan.go", "esim.go", "plan_for_attachment.go", "allowance.go", "subscription.go", "dataset.go",
	"cursor.go", "record_encoder.go", "record_decoder.go", "layout.go", "boltfile.go",
	"esim_queue.go", "content.go", "sub_ref.go", "snapshot.go", "batch.go", "db.go", "open.go",
	"read_tx.go", "tx.go", "errors.go", "options.go", "store.go",
}

const (
	maxFileLines = 350
	// maxUpwardUses is how many file-to-file uses may run against layers.
	maxUpwardUses = 2
)

// fileUses are the package's non-test files and, for each, the other files
// whose declarations (package-level names, methods and fields) it uses.
func fileUses(t *testing.T, dir string) (files map[string]*ast.File, fset *token.FileSet, uses map[string]map[string]bool) {
	t.Helper()
	fset = token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = map[string]*ast.File{}
	var list []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(name)] = f
		list = append(list, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("state", fset, list, info)
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

// The files are in layers (layers above), no two use each other, and no
// file is over maxFileLines.
func TestLayout_filesInLayers(t *testing.T) {
	t.Parallel()
	files, fset, uses := fileUses(t, ".")
	for name := range files {
		if !slices.Contains(layers, name) {
			t.Errorf("%s is not in layers: add it where its uses put it", name)
		}
		if lines := fset.File(files[name].Pos()).LineCount(); lines > maxFileLines {
			t.Errorf("%s has %d lines, over %d", name, lines, maxFileLines)
		}
	}
	upward := 0
	for from, tos := range uses {
		for to := range tos {
			if uses[to][from] && from < to {
				t.Errorf("%s and %s use each other", from, to)
			}
			if slices.Index(layers, to) > slices.Index(layers, from) {
				upward++
				t.Logf("%s uses %s, a layer above it", from, to)
			}
		}
	}
	if upward > maxUpwardUses {
		t.Errorf("%d uses run up the layers, at most %d may", upward, maxUpwardUses)
	}
}

// One type per file, with its methods: a file declares at most one type
// that is exported or has methods (small helper types beside it are
// unexported and methodless), and every method is in its type's file.
func TestLayout_oneTypePerFile(t *testing.T) {
	t.Parallel()
	files, _, _ := fileUses(t, ".")
	typeFile := map[string]string{}
	withMethods := map[string]bool{}
	for name, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
				withMethods[receiverName(fd.Recv.List[0].Type)] = true
			}
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, s := range gd.Specs {
					typeFile[s.(*ast.TypeSpec).Name.Name] = name
				}
			}
		}
	}
	major := map[string][]string{}
	for typ, file := range typeFile {
		if ast.IsExported(typ) || withMethods[typ] {
			major[file] = append(major[file], typ)
		}
	}
	for file, types := range major {
		if len(types) > 1 {
			slices.Sort(types)
			t.Errorf("%s declares %v: one type per file", file, types)
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

// The checks above fail on what they forbid: a file over the limit, and a
// pair of files that use each other.
func TestLayout_checksFailOnBreakage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("type-checks the package twice more")
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
		if name == "values.go" { // the bottom layer, made to use the top
			b = append(b, []byte("\nvar _ = (*Store).Close\n")...)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, _, uses := fileUses(t, dir)
	if !uses["values.go"]["store.go"] {
		t.Fatal("a use of the top layer from the bottom one went unseen")
	}
}
