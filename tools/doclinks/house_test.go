package doclinks

import (
	"path/filepath"
	"strings"
	"testing"
)

// maxMakefileLines keeps the GNUmakefile a table of targets a newcomer
// reads at a glance: recipes longer than a line live in scripts/.
const maxMakefileLines = 120

func TestBuild_makefileStaysATable(t *testing.T) {
	t.Chdir("../..")
	if n := strings.Count(readText(t, "GNUmakefile"), "\n"); n > maxMakefileLines {
		t.Errorf("GNUmakefile has %d lines; keep it at most %d, with longer recipes in scripts/ (steps.sh)", n, maxMakefileLines)
	}
}

// A guide is read by users of a release: none tells them to install the
// provider with `make install`, which needs a checkout of this repository.
// Install in CI names it only to say why a mirror is needed instead.
func TestDocs_noGuideInstallsFromACheckout(t *testing.T) {
	t.Chdir("../..")
	guides, err := filepath.Glob("docs/guides/*.md")
	if err != nil || len(guides) == 0 {
		t.Fatalf("no guides: %v", err)
	}
	for _, g := range guides {
		if filepath.Base(g) == "install-in-ci.md" {
			continue
		}
		if strings.Contains(readText(t, g), "make install") {
			t.Errorf("%s installs the provider with make install; install it as a user of a release would", g)
		}
	}
}
