package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Every test, benchmark and fuzz target the repository's comments and docs
// name is defined in one of its test files.
func TestRepository_everyNamedTestIsDefined(t *testing.T) {
	missing, err := check("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Error(m)
	}
}

// The check itself, on a tree of its own: the names a comment, a Markdown
// page and a template give fail it, at their file and line, until a test
// file defines them; a string in code, another package's name, a prefix
// of a defined test, a testdata directory and CHANGELOG.md do not.
func TestCheck_failsOnANameNoTestDefines(t *testing.T) {
	root := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		path = filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/a.go", "package a\n\n// A is proven by TestGone and by TestThere.\nfunc A() string { return \"TestInAString\" }\n")
	write("a/a_test.go", "package a\n\nimport \"testing\"\n\nfunc TestThere_fromTheStart(t *testing.T) {}\n\nfunc TestThere(t *testing.T) {}\n")
	write("README.md", "# A\n\nThe figure is BenchmarkGone's.\n")
	write("docs/guide.md.tmpl", "Fuzzed by FuzzGone; steps are resource.TestStep; see TestThere_ and TestTh*.\n")
	write("a/testdata/fixture.go", "package fixture\n\n// TestOfAFixture\n")
	write("CHANGELOG.md", "* TestOfAnOldRelease was renamed.\n")

	got := names(t, root)
	want := []string{
		"README.md:3: names BenchmarkGone, which no _test.go file defines",
		"a/a.go:3: names TestGone, which no _test.go file defines",
		"docs/guide.md.tmpl:1: names FuzzGone, which no _test.go file defines",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%q\nwant:\n%q", got, want)
	}

	write("a/more_test.go", "package a\n\nimport \"testing\"\n\nfunc TestGone(t *testing.T) {}\n\nfunc BenchmarkGone(b *testing.B) {}\n\nfunc FuzzGone(f *testing.F) {}\n")
	if got := names(t, root); len(got) > 0 {
		t.Errorf("with every name defined, findings %q; want none", got)
	}
}

func names(t *testing.T, root string) []string {
	t.Helper()
	missing, err := check(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range missing {
		out = append(out, m.String())
	}
	return out
}
