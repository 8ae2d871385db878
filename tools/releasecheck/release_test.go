package releasecheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/releasebuild"
)

// goreleaser is what these tests read of a goreleaser configuration.
type goreleaser struct {
	ProjectName string `yaml:"project_name"`
	Dist        string `yaml:"dist"`
	Builds      []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
		Goarm   []string `yaml:"goarm"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Ignore  []struct {
			Goos   string `yaml:"goos"`
			Goarch string `yaml:"goarch"`
		} `yaml:"ignore"`
	} `yaml:"builds"`
	Archives []struct {
		NameTemplate string `yaml:"name_template"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string   `yaml:"name_template"`
		IDs          []string `yaml:"ids"`
	} `yaml:"checksum"`
	Signs []struct {
		Artifacts string   `yaml:"artifacts"`
		Args      []string `yaml:"args"`
	} `yaml:"signs"`
	Release struct {
		GitHub struct {
			Owner string `yaml:"owner"`
			Name  string `yaml:"name"`
		} `yaml:"github"`
		Mode string `yaml:"mode"`
	} `yaml:"release"`
}

func load(t *testing.T, name string) goreleaser {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	var g goreleaser
	if err := yaml.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(g.Builds) != 1 {
		t.Fatalf("%s: %d builds, want 1", name, len(g.Builds))
	}
	return g
}

// platforms are the os_arch pairs a configuration's build makes, as
// goreleaser expands them (arm builds GOARM 6 and 7 unless goarm says).
func (g goreleaser) platforms() []string {
	b := g.Builds[0]
	var out []string
	for _, goos := range b.Goos {
		for _, goarch := range b.Goarch {
			if slices.ContainsFunc(b.Ignore, func(i struct {
				Goos   string `yaml:"goos"`
				Goarch string `yaml:"goarch"`
			}) bool {
				return i.Goos == goos && i.Goarch == goarch
			}) {
				continue
			}
			out = append(out, goos+"_"+goarch)
		}
	}
	slices.Sort(out)
	return append(out, "goarm="+strings.Join(b.Goarm, ","))
}

func TestRelease_emulatorOnEveryProviderPlatform(t *testing.T) {
	t.Parallel()
	provider, emulator := load(t, ".goreleaser.yml"), load(t, ".goreleaser.emulator.yml")
	if p, e := provider.platforms(), emulator.platforms(); !slices.Equal(p, e) {
		t.Errorf("the emulator is built for\n  %v\nthe provider for\n  %v", e, p)
	}
	if len(provider.platforms()) < 10 {
		t.Fatalf("the provider's platforms read as %v: the comparison would be empty", provider.platforms())
	}
	if got := emulator.Builds[0].Main; got != "./cmd/mobileplan-emulator" {
		t.Errorf("the emulator's release builds %q", got)
	}
}

// The tests and the mirror build as internal/releasebuild says: a change
// of either release's build settings fails here until releasebuild
// follows it (the shell's spelling of it is held to releasebuild below).
func TestRelease_buildsAsReleasebuildSays(t *testing.T) {
	t.Parallel()
	for _, name := range []string{".goreleaser.yml", ".goreleaser.emulator.yml"} {
		b := load(t, name).Builds[0]
		ldflags := len(b.Ldflags) == 1 && (b.Ldflags[0] == releasebuild.LDFlags || strings.HasPrefix(b.Ldflags[0], releasebuild.LDFlags+" "))
		if !slices.Equal(b.Env, releasebuild.Env) || !slices.Equal(b.Flags, releasebuild.Flags) || !ldflags {
			t.Errorf("%s builds with env %q, flags %q, ldflags %q; releasebuild says env %q, flags %q, ldflags beginning %q",
				name, b.Env, b.Flags, b.Ldflags, releasebuild.Env, releasebuild.Flags, releasebuild.LDFlags)
		}
	}
}

// make test-build, make install, the scripts and the benchmarks build with
// scripts/lib.sh's release_build: its line says what releasebuild says.
func TestRelease_scriptsBuildAsReleasebuildSays(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "scripts", "lib.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for l := range strings.Lines(string(b)) {
		if strings.HasPrefix(l, "release_build() {") {
			line = l
		}
	}
	want := append(append(slices.Clone(releasebuild.Env), releasebuild.Flags...), `-ldflags "`+releasebuild.LDFlags)
	for _, w := range want {
		if !strings.Contains(line, w) {
			t.Errorf("scripts/lib.sh's release_build lacks %q (releasebuild): %q", w, line)
		}
	}
}

// What the registries read: the provider's archives, SHA256SUMS, its
// signature and the manifest, all named terraform-provider-mobileplan_*.
// The emulator's files must be named otherwise, listed in a checksums file
// of their own, and signed with the same key.
func TestRelease_emulatorLeavesTheRegistriesFilesAlone(t *testing.T) {
	t.Parallel()
	provider, emulator := load(t, ".goreleaser.yml"), load(t, ".goreleaser.emulator.yml")
	if provider.ProjectName != "terraform-provider-mobileplan" ||
		provider.Checksum.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_SHA256SUMS" ||
		provider.Archives[0].NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" {
		t.Errorf("the provider's release names changed: project %q, checksums %q, archives %q",
			provider.ProjectName, provider.Checksum.NameTemplate, provider.Archives[0].NameTemplate)
	}
	if strings.HasPrefix(emulator.ProjectName, "terraform-provider-") || emulator.ProjectName == "" {
		t.Errorf("the emulator's files are named %q_*, which a registry could take for the provider's", emulator.ProjectName)
	}
	if !strings.Contains(emulator.Checksum.NameTemplate, "{{ .ProjectName }}") || !slices.Equal(emulator.Checksum.IDs, []string{"emulator"}) {
		t.Errorf("the emulator's checksums file %q (ids %v) is not its own", emulator.Checksum.NameTemplate, emulator.Checksum.IDs)
	}
	if emulator.Dist == "" || emulator.Dist == "dist" || emulator.Dist == provider.Dist {
		t.Errorf("the emulator's run writes to %q, where the provider's files are", emulator.Dist)
	}
	if len(emulator.Signs) != 1 || len(provider.Signs) != 1 || emulator.Signs[0].Artifacts != "checksum" ||
		!slices.Equal(emulator.Signs[0].Args, provider.Signs[0].Args) {
		t.Errorf("the emulator's checksums are not signed as the provider's: %+v, provider %+v", emulator.Signs, provider.Signs)
	}
	if emulator.Release.GitHub != provider.Release.GitHub || emulator.Release.Mode != "keep-existing" {
		t.Errorf("the emulator's files go to %+v (mode %q), the provider's to %+v", emulator.Release.GitHub, emulator.Release.Mode, provider.Release.GitHub)
	}
}

// Every Go module of the repository, and the workflows' actions, are kept
// current by dependabot: a go.mod added anywhere without an entry in
// .github/dependabot.yml fails here.
func TestDependabot_everyGoModuleAndTheActions(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, ".github", "dependabot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var config struct {
		Updates []struct {
			Ecosystem string `yaml:"package-ecosystem"`
			Directory string `yaml:"directory"`
		} `yaml:"updates"`
	}
	if err := yaml.Unmarshal(b, &config); err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, u := range config.Updates {
		kept[u.Ecosystem+" "+u.Directory] = true
	}
	var modules []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "bin" || strings.HasPrefix(d.Name(), "dist") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			modules = append(modules, "/"+strings.TrimPrefix(filepath.ToSlash(rel), "."))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(modules) < 3 {
		t.Fatalf("found the go.mod files %v only: the walk misses some", modules)
	}
	for _, dir := range append(modules, "github-actions /") {
		want := dir
		if !strings.HasPrefix(dir, "github-actions") {
			want = "gomod " + dir
		}
		if !kept[want] {
			t.Errorf(".github/dependabot.yml keeps no %q current", want)
		}
	}
}
