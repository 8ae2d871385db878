// Command docnames finds the tests, benchmarks and fuzz targets that the
// repository's comments and docs name, and that no test file defines. A
// comment that gives a test as the proof of a rule, or a guide that cites
// a benchmark for a figure, says nothing once that test is renamed or
// gone, and nothing else would notice.
//
//	go run ./tools/docnames [root]
//
// It reads the comments of every .go file and every Markdown file and
// template (*.md, *.tmpl), CHANGELOG.md aside: a release's entry tells
// what was true then. A name is Test, Benchmark or Fuzz followed by a
// capital letter, as `go test` requires; one written as a prefix, ending
// in an underscore (TestPagedReader_) or followed by a star, stands for
// every test it begins. Names qualified by a package (resource.TestStep) are another
// package's, not a test. Directories named testdata, bin or dist, and
// hidden ones, are left out. Its test runs it on the repository, so
// `make test` fails on a name no test defines, naming the file and line.
package main

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	missing, err := check(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docnames:", err)
		os.Exit(2)
	}
	for _, m := range missing {
		fmt.Println(m)
	}
	if len(missing) > 0 {
		os.Exit(1)
	}
}

// finding is a name given at a file's line that no test file defines.
type finding struct {
	file string // relative to the root, with forward slashes
	line int
	name string
}

func (f finding) String() string {
	return fmt.Sprintf("%s:%d: names %s, which no _test.go file defines", f.file, f.line, f.name)
}

var (
	// testName is a name `go test` runs: the prefix, then a capital.
	testName = regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*`)
	// definition is a test function declared in a _test.go file.
	definition = regexp.MustCompile(`(?m)^func\s+((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)\s*\(`)
)

// check returns every name given under root that no _test.go file under
// root defines, in the order of the files' paths and lines.
func check(root string) ([]finding, error) {
	var goFiles, docs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin" || name == "dist") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(name, ".go"):
			goFiles = append(goFiles, path)
		case (strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".tmpl")) && name != "CHANGELOG.md":
			docs = append(docs, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	defined := map[string]bool{}
	type given struct {
		file, name string
		line       int
		prefix     bool
	}
	var names []given
	add := func(path, text string, firstLine int) {
		for _, loc := range testName.FindAllStringIndex(text, -1) {
			if loc[0] > 0 && text[loc[0]-1] == '.' {
				continue // another package's name: resource.TestStep
			}
			name := text[loc[0]:loc[1]]
			prefix := strings.HasSuffix(name, "_") || loc[1] < len(text) && text[loc[1]] == '*'
			line := firstLine + strings.Count(text[:loc[0]], "\n")
			names = append(names, given{file: path, name: name, line: line, prefix: prefix})
		}
	}
	for _, path := range goFiles {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(path, "_test.go") {
			for _, m := range definition.FindAllSubmatch(src, -1) {
				defined[string(m[1])] = true
			}
		}
		for _, c := range comments(path, src) {
			add(path, c.text, c.line)
		}
	}
	for _, path := range docs {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		add(path, string(src), 1)
	}

	var missing []finding
	for _, g := range names {
		if defined[g.name] {
			continue
		}
		if g.prefix && slices.ContainsFunc(slices.Collect(maps.Keys(defined)), func(d string) bool { return strings.HasPrefix(d, g.name) }) {
			continue
		}
		rel, err := filepath.Rel(root, g.file)
		if err != nil {
			return nil, err
		}
		missing = append(missing, finding{file: filepath.ToSlash(rel), line: g.line, name: g.name})
	}
	slices.SortStableFunc(missing, func(a, b finding) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.line - b.line
	})
	return missing, nil
}

// comment is the text of one comment and the line it starts on.
type comment struct {
	text string
	line int
}

// comments are the comments of the Go source src: names in code or in
// strings are the code's business, which the compiler checks.
func comments(path string, src []byte) []comment {
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	// A file that does not scan still has its comments read up to the
	// error; the compiler reports the error itself.
	s.Init(file, src, func(token.Position, string) {}, scanner.ScanComments)
	var out []comment
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.COMMENT {
			out = append(out, comment{text: lit, line: fset.Position(pos).Line})
		}
	}
}
