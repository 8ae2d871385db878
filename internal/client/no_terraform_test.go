package client

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// The client states facts; what Terraform users should do about them is
// internal/diagnostics' to say. No text of the package may name a provider
// setting, a resource or data source, an environment variable or a CLI
// command.
func TestNoTerraformWordsInClientTexts(t *testing.T) {
	t.Parallel()
	banned := []string{
		"request_timeout", "api_token", "base_url", "max_retries", "max_items",
		"mobileplan_", "MOBILEPLAN_", "terraform", "import block", "data source", "provider",
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		// Import paths name modules, not advice.
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.ImportSpec); ok {
				return false
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			for _, word := range banned {
				if strings.Contains(strings.ToLower(lit.Value), strings.ToLower(word)) {
					t.Errorf("%s: %s names %q; say it in internal/diagnostics", fset.Position(lit.Pos()), lit.Value, word)
				}
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("checked %d files; the test no longer finds the package's sources", checked)
	}
}
