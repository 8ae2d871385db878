package acctest

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-version"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/releasebuild"
)

// ProductBinary is the package of the provider users run: main.go.
const ProductBinary = "github.com/mobileplan/terraform-provider-mobileplan"

// builds holds one build of each provider the tests run, made on first
// use, under the directory Main removes.
var builds sync.Map // package path -> *build

type build struct {
	once   sync.Once
	dir    string
	err    error
	output []byte
}

// builtOnce builds pkg into dir/binary, a directory of its own, once per
// test binary, as our releases build (releasebuild), with the go command
// run in moduleDir ("" for this module), and returns that directory. what
// names the provider in a failure.
func builtOnce(t *testing.T, what, moduleDir, pkg, binary string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(pkg, &build{})
	b := v.(*build)
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", binary+"-bin")
		if b.err != nil {
			return
		}
		cmd := releasebuild.Command(filepath.Join(b.dir, binary), pkg)
		cmd.Dir = moduleDir
		b.output, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("building %s: %v\n%s", what, b.err, b.output)
	}
	return b.dir
}

// BuildDirEnv names the directory of make test's one build of main.go
// (provider/terraform-provider-mobileplan) and of the emulator
// (mobileplan-emulator), made before its test passes: a test binary run by
// make test runs that build of ProductBinary instead of building its own,
// as make test's scripts do.
const BuildDirEnv = "MOBILEPLAN_TEST_BUILD"

// providerBinaryDir builds pkg, once per test binary, and returns the
// directory holding terraform-provider-mobileplan: for ProductBinary with
// BuildDirEnv set (make test), the directory of that build.
func providerBinaryDir(t *testing.T, pkg string) string {
	t.Helper()
	if dir := os.Getenv(BuildDirEnv); dir != "" && pkg == ProductBinary {
		check, _ := madeBuilds.LoadOrStore(dir, sync.OnceValues(func() (string, error) { return madeBuildDir(dir) }))
		provider, err := check.(func() (string, error))()
		if err != nil {
			t.Fatal(err)
		}
		return provider
	}
	return builtOnce(t, "the provider "+pkg, "", pkg, "terraform-provider-mobileplan")
}

// madeBuilds holds madeBuildDir's answer for each directory, found once
// per test binary.
var madeBuilds sync.Map // dir -> func() (string, error)

// madeBuildDir is the absolute, symlink-free directory of the provider in
// the build dir names (BuildDirEnv): the CLI reads it from a working
// directory of its own, and the kill tests compare it with the path of a
// running process. A build older than a Go file, go.mod or go.sum of this
// module is refused: a variable left set outside make test must not run an
// old provider; so is a build not made as the releases make it
// (releasebuild): the tests run the binary users run.
func madeBuildDir(dir string) (string, error) {
	abs, err := filepath.Abs(filepath.Join(dir, "provider"))
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("%s=%s holds no build of the provider: %w", BuildDirEnv, dir, err)
	}
	built, err := os.Stat(filepath.Join(abs, "terraform-provider-mobileplan"))
	if err != nil {
		return "", fmt.Errorf("%s=%s holds no build of the provider: %w", BuildDirEnv, dir, err)
	}
	root, err := moduleDir()
	if err != nil {
		return "", err
	}
	if newer := newerSource(root, built.ModTime()); newer != "" {
		return "", fmt.Errorf("%s=%s holds a build older than %s: unset it, or run make test-build", BuildDirEnv, dir, newer)
	}
	if differs := releasebuild.FileDiffers(filepath.Join(abs, "terraform-provider-mobileplan")); differs != "" {
		return "", fmt.Errorf("%s=%s holds a build of the provider not made as the releases make it: %s; unset it, or run make test-build", BuildDirEnv, dir, differs)
	}
	return abs, nil
}

// newerSource is a Go file, go.mod or go.sum under root (bin/ and .git
// left out) modified after than, or "".
func newerSource(root string, than time.Time) string {
	var newer string
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || newer != "":
			return filepath.SkipAll
		case d.IsDir() && (path == filepath.Join(root, "bin") || d.Name() == ".git"):
			return filepath.SkipDir
		case d.IsDir() || (!strings.HasSuffix(path, ".go") && d.Name() != "go.mod" && d.Name() != "go.sum"):
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(than) {
			newer = path
		}
		return nil
	})
	return newer
}

// GenericRESTProviderSource is the generic REST provider's source address.
const GenericRESTProviderSource = "mastercard/restapi"

// genericRESTProviderDir builds the generic REST provider that
// tools/restapi pins (a module of its own), once per test binary, and
// returns the directory holding terraform-provider-restapi. Cold, the build
// costs about 30 s; afterwards the Go build cache makes it a second.
func genericRESTProviderDir(t *testing.T) string {
	t.Helper()
	dir, err := moduleDir()
	if err != nil {
		t.Fatal(err)
	}
	return builtOnce(t, "the generic REST provider (tools/restapi)", filepath.Join(dir, "tools", "restapi"), "github.com/Mastercard/terraform-provider-restapi", "terraform-provider-restapi")
}

// moduleDir is this module's directory, found from its go.mod.
var moduleDir = sync.OnceValues(func() (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	return filepath.Dir(strings.TrimSpace(string(gomod))), nil
})

// TerraformBinary is the CLI the tests run: TF_ACC_TERRAFORM_PATH, as for
// terraform-plugin-testing, so that a run under OpenTofu or another
// Terraform drives that CLI here too; else terraform on PATH.
func TerraformBinary() string {
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	return "terraform"
}

// SkipUnlessAcceptance skips t unless TF_ACC is set, as
// terraform-plugin-testing does.
func SkipUnlessAcceptance(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("set TF_ACC=1 to run tests that drive the terraform CLI")
	}
}

// CLI runs the terraform CLI in a directory of its own, with the provider
// built from a package and found through dev_overrides: no `terraform
// init`, no registry.
type CLI struct {
	t         *testing.T
	Dir       string
	env       []string
	provider  string
	overrides map[string]string // provider source -> directory of its binary
}

// NewCLI returns a CLI that runs the provider built from pkg
// (ProductBinary, or another main package), with extraEnv added to a
// clean environment: no TF_LOG or MOBILEPLAN_ variable of the caller's,
// nor what the provider adds to its requests (a CI job's trace context).
func NewCLI(t *testing.T, pkg string, extraEnv ...string) *CLI {
	t.Helper()
	SkipUnlessAcceptance(t)
	bin := providerBinaryDir(t, pkg)
	dir := t.TempDir()
	rc := filepath.Join(dir, "dev.tfrc")
	c := &CLI{t: t, Dir: dir, provider: filepath.Join(bin, "terraform-provider-mobileplan"), overrides: map[string]string{"mobileplan/mobileplan": bin}}
	c.writeCLIConfig()
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_LOG") || strings.HasPrefix(kv, "MOBILEPLAN_") || strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") ||
			strings.HasPrefix(kv, "TF_APPEND_USER_AGENT=") || strings.HasPrefix(kv, "TRACEPARENT=") || strings.HasPrefix(kv, "TRACESTATE=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	env = append(env, extraEnv...)
	c.env = env
	return c
}

// writeCLIConfig writes the CLI configuration: a dev_overrides entry for
// each provider the CLI runs from a local build.
func (c *CLI) writeCLIConfig() {
	c.t.Helper()
	var b strings.Builder
	b.WriteString("provider_installation {\n  dev_overrides {\n")
	for _, source := range slices.Sorted(maps.Keys(c.overrides)) {
		fmt.Fprintf(&b, "    %q = %q\n", source, c.overrides[source])
	}
	b.WriteString("  }\n  direct {}\n}\n")
	if err := os.WriteFile(filepath.Join(c.Dir, "dev.tfrc"), []byte(b.String()), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// UseGenericRESTProvider makes the CLI run the generic REST provider
// (mastercard/restapi) at the version tools/restapi pins, built from
// source, for the tests of the move from its restapi_object.
func (c *CLI) UseGenericRESTProvider() {
	c.t.Helper()
	c.overrides[GenericRESTProviderSource] = genericRESTProviderDir(c.t)
	c.writeCLIConfig()
}

// ProviderPath is the provider binary the CLI runs.
func (c *CLI) ProviderPath() string { return c.provider }

// Env is the environment the CLI's commands run with, for a test that runs
// a command of its own (a script) the way the CLI runs terraform.
func (c *CLI) Env() []string { return append([]string{}, c.env...) }

// Write writes a file of the working directory.
func (c *CLI) Write(name, content string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.Dir, name), []byte(content), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// Read reads a file of the working directory.
func (c *CLI) Read(name string) string {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir, name))
	if err != nil {
		c.t.Fatal(err)
	}
	return string(b)
}

// Run runs a command with env added, and returns the combined output and
// the exit code.
func (c *CLI) Run(env []string, args ...string) (string, int) {
	c.t.Helper()
	args = append(args, "-no-color")
	cmd := exec.Command(TerraformBinary(), args...)
	cmd.Dir = c.Dir
	cmd.Env = append(append([]string{}, c.env...), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	default:
		c.t.Fatalf("terraform %v: %v", args, err)
		return "", -1
	}
}

// Must runs a command that has to succeed.
func (c *CLI) Must(args ...string) string {
	c.t.Helper()
	out, code := c.Run(nil, args...)
	if code != 0 {
		c.t.Fatalf("terraform %s exited %d:\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// PlanExpect runs terraform plan and requires its exit code: 0 no changes,
// 2 changes.
func (c *CLI) PlanExpect(code int, args ...string) string {
	c.t.Helper()
	out, got := c.Run(nil, append([]string{"plan", "-input=false", "-detailed-exitcode"}, args...)...)
	if got != code {
		c.t.Fatalf("terraform plan exited %d, want %d:\n%s", got, code, out)
	}
	return out
}

// ExpectNoChanges runs a plan that must find nothing to do.
func (c *CLI) ExpectNoChanges() {
	c.t.Helper()
	out, code := c.Run(nil, "plan", "-detailed-exitcode", "-input=false")
	if code != 0 {
		c.t.Fatalf("plan after apply is not empty (exit %d):\n%s", code, out)
	}
	if !strings.Contains(out, "No changes.") {
		c.t.Fatalf("plan does not say No changes:\n%s", out)
	}
}

// ProviderBlock is the configuration's terraform and provider blocks for
// srv, with settings (whole lines) added to the provider block.
func ProviderBlock(srv *emulatortest.Server, settings string) string {
	return fmt.Sprintf(`
terraform {
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
  }
}

provider "mobileplan" {
  base_url  = %q
  api_token = %q
%s}
`, srv.URL, srv.Token, settings)
}

// Feature is what a test needs of the CLI it runs: a minimum version, and
// for features OpenTofu does not have, Terraform itself.
type Feature struct {
	name          string
	minimum       *version.Version
	terraformOnly bool
}

var (
	// Identity: resource identity came with Terraform 1.12 and OpenTofu 1.12.
	Identity = Feature{"resource identity and import blocks with identity need Terraform or OpenTofu 1.12", version.Must(version.NewVersion("1.12.0")), false}
	// Query: `terraform query` came with Terraform 1.14; OpenTofu has none yet.
	Query = Feature{"list resources and terraform query need Terraform 1.14", version.Must(version.NewVersion("1.14.0")), true}
)

// cliIdentity is the line of `version` of the CLI the tests run that names
// it, e.g. "Terraform v1.11.4" or "OpenTofu v1.12.6", asked once per test
// binary. It is the first line, unless the CLI printed a warning first, as
// OpenTofu does on standard output when TF_CLI_CONFIG_FILE names a missing
// file.
var cliIdentity = sync.OnceValues(func() (string, error) {
	out, err := exec.Command(TerraformBinary(), "version").Output()
	if err != nil {
		return "", err
	}
	lines := strings.Split(string(out), "\n")
	for _, line := range lines {
		if strings.HasPrefix(line, "Terraform v") || strings.HasPrefix(line, "OpenTofu v") {
			return strings.TrimSpace(line), nil
		}
	}
	return strings.TrimSpace(lines[0]), nil
})

// CLINameVersion is the name ("Terraform" or "OpenTofu") and version of
// the CLI the tests run.
func CLINameVersion(t *testing.T) (string, *version.Version) {
	t.Helper()
	line, err := cliIdentity()
	if err != nil {
		t.Fatalf("%s version: %v", TerraformBinary(), err)
	}
	name, ver, ok := strings.Cut(line, " v")
	v, perr := version.NewVersion(ver)
	if !ok || perr != nil {
		t.Fatalf("cannot read the CLI's version from %q", line)
	}
	return name, v
}

// CLIHas reports whether the CLI the tests run has f.
func CLIHas(t *testing.T, f Feature) bool {
	t.Helper()
	name, v := CLINameVersion(t)
	return (!f.terraformOnly || name == "Terraform") && !v.Core().LessThan(f.minimum)
}

// RequireCLI skips t, saying which feature is missing, when the CLI the
// tests run lacks f, so a skipped test reads as a reason and not as a gap.
func RequireCLI(t *testing.T, f Feature) {
	t.Helper()
	SkipUnlessAcceptance(t)
	name, v := CLINameVersion(t)
	if f.terraformOnly && name != "Terraform" {
		t.Skipf("%s %s is not Terraform (%s)", name, v, f.name)
	}
	if v.Core().LessThan(f.minimum) {
		t.Skipf("CLI version %s is below %s (%s)", v, f.minimum, f.name)
	}
}

// Main runs a package's tests, as its TestMain: Terraform looks for no new
// versions and reads an empty CLI configuration instead of whatever the
// machine has, and every temporary file of the run, provider builds
// included, goes under one directory, removed at the end. A file a test
// left behind there fails the run. In an acceptance run the CLI is asked
// for `version -json` once (version_once.go).
func Main(m *testing.M) int {
	os.Setenv("CHECKPOINT_DISABLE", "1")
	root, err := os.MkdirTemp("", "mobileplan-provider-test")
	if err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", root)
	cliConfig := filepath.Join(root, "terraformrc")
	if err := os.WriteFile(cliConfig, nil, 0o600); err != nil {
		panic(err)
	}
	os.Setenv("TF_CLI_CONFIG_FILE", cliConfig)
	var standIn string
	if os.Getenv("TF_ACC") != "" {
		standIn = versionStandIn(root)
	}
	code := m.Run()
	if standIn != "" {
		os.RemoveAll(filepath.Dir(standIn))
	}
	builds.Range(func(_, v any) bool {
		if dir := v.(*build).dir; dir != "" {
			os.RemoveAll(dir)
		}
		return true
	})
	os.Remove(cliConfig)
	if left, _ := os.ReadDir(root); len(left) > 0 {
		for _, e := range left {
			fmt.Fprintf(os.Stderr, "left behind in the temp dir: %s\n", e.Name())
		}
		code = 1
	}
	os.RemoveAll(root)
	return code
}
