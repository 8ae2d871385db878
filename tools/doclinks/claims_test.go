package doclinks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// testedTerraform is the oldest Terraform a test has run: the CLI on PATH
// where CI runs `make test`. Raise it when CI moves on; every doc and example
// that claims an older floor then fails TestDocs_claimNoVersionBelowTheTested.
const testedTerraform = "1.11.4"

// maxDocBytes is the most README.md and docs/index.md may hold: pages a
// newcomer scans, as the best providers' are (3 to 5 KB).
const maxDocBytes = 10_000

// The oldest tested versions, each from the one place it is decided.
func testedFloors(t *testing.T) (terraform, opentofu, golang version) {
	t.Helper()
	terraform = parseVersion(t, testedTerraform)
	tofuMod := readText(t, "tools/opentofu/go.mod")
	m := regexp.MustCompile(`github\.com/opentofu/opentofu v(\d+\.\d+\.\d+)`).FindStringSubmatch(tofuMod)
	if m == nil {
		t.Fatal("tools/opentofu/go.mod pins no OpenTofu version")
	}
	opentofu = parseVersion(t, m[1])
	// Go's floor is what `make test` needs: the highest go directive of the
	// modules it builds.
	mods, err := filepath.Glob("tools/*/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, mod := range append(mods, "go.mod") {
		if m := regexp.MustCompile(`(?m)^go (\d+\.\d+(?:\.\d+)?)$`).FindStringSubmatch(readText(t, mod)); m != nil {
			if v := parseVersion(t, m[1]); golang.less(v) {
				golang = v
			}
		}
	}
	return terraform, opentofu, golang
}

type version [3]int

func parseVersion(t *testing.T, s string) version {
	t.Helper()
	var v version
	for i, part := range strings.SplitN(s, ".", 3) {
		n, err := strconv.Atoi(part)
		if err != nil {
			t.Fatalf("version %q: %v", s, err)
		}
		v[i] = n
	}
	return v
}

func (v version) less(w version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

// minor is v without its patch: a floor written "1.11" is met by 1.11.4.
func (v version) minor() version { return version{v[0], v[1], 0} }

func (v version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

var (
	// A floor: "Terraform 1.5+", "OpenTofu 1.6 and later", "Terraform and
	// OpenTofu 1.12 or newer", ">= 1.7" in required_version.
	cliFloor  = regexp.MustCompile(`(?i)\b(terraform|opentofu|tofu)\b[^.\n]{0,40}?\bv?(\d+\.\d+(?:\.\d+)?)(\+| or newer| or later| and newer| and later)`)
	bareFloor = regexp.MustCompile(`\b(\d+\.\d+(?:\.\d+)?)\+`)
	required  = regexp.MustCompile(`required_version\s*=\s*"\s*>=?\s*(\d+\.\d+(?:\.\d+)?)`)
	goFloor   = regexp.MustCompile(`\bGo\b[^.\n]{0,20}?\b(\d+\.\d+(?:\.\d+)?)(\+| or newer| or later| and later| and newer)`)
)

// claimFiles are every doc, template and example a user or a contributor
// reads, and CI's entry point.
func claimFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard",
		"*.md", "*.tmpl", "*.tf", "*.hcl", ".ci/run").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	var files []string
	for _, f := range strings.Fields(string(out)) {
		// Measurements, not claims.
		if strings.HasPrefix(f, "tools/bench/") {
			continue
		}
		files = append(files, f)
	}
	return files
}

// Every claim of a supported Terraform, OpenTofu or Go version names a
// version a test has run, or a newer one (a feature's minimum): none claims
// a floor below the tested one.
func TestDocs_claimNoVersionBelowTheTested(t *testing.T) {
	t.Chdir("../..")
	terraform, opentofu, golang := testedFloors(t)
	floorOf := func(cli string) version {
		if strings.Contains(strings.ToLower(cli), "tofu") {
			return opentofu.minor()
		}
		return terraform.minor()
	}
	for _, file := range claimFiles(t) {
		for i, line := range strings.Split(readText(t, file), "\n") {
			at := fmt.Sprintf("%s:%d", file, i+1)
			for _, m := range cliFloor.FindAllStringSubmatch(line, -1) {
				if v := parseVersion(t, m[2]); v.less(floorOf(m[1])) {
					t.Errorf("%s claims %q; the oldest tested is %s", at, m[0], floorOf(m[1]))
				}
			}
			if strings.Contains(strings.ToLower(line), "terraform") || strings.Contains(strings.ToLower(line), "tofu") {
				for _, m := range bareFloor.FindAllStringSubmatch(line, -1) {
					if v := parseVersion(t, m[1]); v.less(terraform.minor()) {
						t.Errorf("%s claims %q; the oldest tested Terraform is %s", at, m[0], terraform)
					}
				}
			}
			for _, m := range required.FindAllStringSubmatch(line, -1) {
				if v := parseVersion(t, m[1]); v.less(terraform.minor()) {
					t.Errorf("%s requires Terraform %s; the oldest tested is %s", at, m[1], terraform)
				}
			}
			for _, m := range goFloor.FindAllStringSubmatch(line, -1) {
				if v := parseVersion(t, m[1]); v.less(golang) {
					t.Errorf("%s claims %q; make test needs Go %s", at, m[0], golang)
				}
			}
		}
	}
}

// The README's requirements name exactly the versions the tests run.
func TestDocs_readmeNamesTheTestedVersions(t *testing.T) {
	t.Chdir("../..")
	terraform, opentofu, golang := testedFloors(t)
	readme := readText(t, "README.md")
	for what, v := range map[string]version{"Terraform": terraform, "OpenTofu": opentofu, "Go": golang} {
		if !regexp.MustCompile(`(?m)^\|[^|\n]*` + what + `[^|\n]*\|\s*` + regexp.QuoteMeta(v.String()) + `\b`).MatchString(readme) {
			t.Errorf("README.md's Requirements table does not give %s %s", what, v)
		}
	}
}

// README.md and docs/index.md are scanned, not read: each stays under
// maxDocBytes.
func TestDocs_frontPagesStaySmall(t *testing.T) {
	t.Chdir("../..")
	for _, file := range []string{"README.md", "docs/index.md"} {
		info, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() >= maxDocBytes {
			t.Errorf("%s is %d bytes; keep it under %d, and move the rest to a guide", file, info.Size(), maxDocBytes)
		}
	}
}

// Each section exists once: README.md and docs/index.md share no
// paragraph (nor code block), so the two cannot drift apart.
func TestDocs_readmeAndIndexShareNoParagraph(t *testing.T) {
	t.Chdir("../..")
	index := map[string]bool{}
	for _, p := range paragraphs(readText(t, "docs/index.md")) {
		index[p] = true
	}
	for _, p := range paragraphs(readText(t, "README.md")) {
		if index[p] {
			t.Errorf("README.md and docs/index.md share a paragraph; keep it in one of them and link to it:\n%s", p)
		}
	}
}

// paragraphs are a document's blocks (separated by blank lines), white
// space collapsed, leaving out the short ones (a heading, a fence line).
func paragraphs(text string) []string {
	var out []string
	for _, block := range regexp.MustCompile(`\n\s*\n`).Split(text, -1) {
		p := strings.Join(strings.Fields(block), " ")
		if len(p) >= 60 {
			out = append(out, p)
		}
	}
	return out
}
