package doclinks

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The repository's Markdown must stand alone in a clone: every relative
// link resolves to a file of the repository (and to a heading there, when it
// names one), and nothing points outside it.
var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	outsideRef = regexp.MustCompile("`\\.\\./[^`]*`")
	heading    = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*$`)
	fence      = regexp.MustCompile("(?ms)^```.*?^```")
	notInSlug  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	htmlAnchor = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)
)

func TestMarkdown_linksStayInTheRepository(t *testing.T) {
	t.Chdir("../..") // the repository's root, where the links are read from
	out, err := exec.Command("git", "ls-files", "*.md").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	files := strings.Fields(string(out))
	for _, extra := range []string{"README.md", "api/README.md"} {
		if !contains(files, extra) {
			files = append(files, extra) // new files count before they are committed
		}
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		text := readText(t, file)
		prose := fence.ReplaceAllString(text, "")
		for _, ref := range outsideRef.FindAllString(prose, -1) {
			t.Errorf("%s names %s, a path outside the repository", file, ref)
		}
		for _, m := range mdLink.FindAllStringSubmatch(prose, -1) {
			checkLink(t, root, file, text, m[1])
		}
	}
}

func checkLink(t *testing.T, root, file, text, link string) {
	t.Helper()
	if strings.HasPrefix(link, "https://") || strings.HasPrefix(link, "http://") || strings.HasPrefix(link, "mailto:") {
		return
	}
	target, anchor, _ := strings.Cut(link, "#")
	if strings.Contains(target, ":") || filepath.IsAbs(target) {
		t.Errorf("%s links to %q: only relative links to files of the repository work in a clone", file, link)
		return
	}
	targetText := text
	if target != "" {
		path := filepath.Join(filepath.Dir(filepath.Join(root, file)), filepath.FromSlash(target))
		if rel, err := filepath.Rel(root, path); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("%s links to %q, outside the repository", file, link)
			return
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Errorf("%s links to %q, which does not exist", file, link)
			return
		}
		if anchor == "" || info.IsDir() || !strings.HasSuffix(path, ".md") {
			return
		}
		targetText = readText(t, path)
	}
	if anchor != "" && !hasHeading(targetText, anchor) {
		t.Errorf("%s links to %q, but no heading there has the anchor #%s", file, link, anchor)
	}
}

// hasHeading reports whether a heading's GitHub anchor, or an HTML anchor
// (tfplugindocs writes those for nested attributes), is anchor.
func hasHeading(text, anchor string) bool {
	for _, m := range htmlAnchor.FindAllStringSubmatch(text, -1) {
		if m[1] == anchor {
			return true
		}
	}
	for _, m := range heading.FindAllStringSubmatch(fence.ReplaceAllString(text, ""), -1) {
		slug := strings.ReplaceAll(notInSlug.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if slug == anchor {
			return true
		}
	}
	return false
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
