package acctest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The tests build the provider and the emulator they run as the releases
// build them: a change of either release's build settings fails here
// until ReleaseBuild, and so the tests' builds, follow it.
func TestReleaseBuild_isHowTheReleasesBuild(t *testing.T) {
	root, err := moduleDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".goreleaser.yml", ".goreleaser.emulator.yml"} {
		text, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		var release struct {
			Builds []struct {
				Env     []string `yaml:"env"`
				Flags   []string `yaml:"flags"`
				Ldflags []string `yaml:"ldflags"`
			} `yaml:"builds"`
		}
		if err := yaml.Unmarshal(text, &release); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(release.Builds) != 1 {
			t.Fatalf("%s: %d builds, want 1", name, len(release.Builds))
		}
		b := release.Builds[0]
		ldflags := len(b.Ldflags) == 1 && (b.Ldflags[0] == ReleaseBuild.LDFlags || strings.HasPrefix(b.Ldflags[0], ReleaseBuild.LDFlags+" "))
		if !slices.Equal(b.Env, ReleaseBuild.Env) || !slices.Equal(b.Flags, ReleaseBuild.Flags) || !ldflags {
			t.Errorf("%s builds with env %q, flags %q, ldflags %q; the tests build with env %q, flags %q, ldflags beginning %q",
				name, b.Env, b.Flags, b.Ldflags, ReleaseBuild.Env, ReleaseBuild.Flags, ReleaseBuild.LDFlags)
		}
	}
}
