package doclinks

import (
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The interrupted-runs guide's CI examples keep the journal of creates
// across jobs: restored before terraform runs, and saved after it even when
// the job failed (GitHub Actions: after a cancel too), from where the
// provider writes it. That a journal restored so lets the next job take
// what a killed one left is TestCLI_journalRestoredInANewCheckout's.
const journalDir = ".terraform/mobileplan"

// workflowStep is a step of a GitHub Actions job, as far as these tests
// read it.
type workflowStep struct {
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

func TestCIExamples_githubActionsKeepsTheJournal(t *testing.T) {
	t.Chdir("../..")
	var workflow struct {
		Jobs map[string]struct {
			Steps []workflowStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(readText(t, "examples/ci/github-actions.yml")), &workflow); err != nil {
		t.Fatal(err)
	}
	restore, apply, save := -1, -1, -1
	for i, s := range workflow.Jobs["apply"].Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/cache/restore@") && s.With["path"] == journalDir:
			restore = i
		case strings.Contains(s.Run, "terraform apply"):
			apply = i
		case strings.HasPrefix(s.Uses, "actions/cache/save@") && s.With["path"] == journalDir && s.If == "always()":
			save = i
		}
	}
	if restore < 0 || apply < restore || save < apply {
		t.Errorf("want the journal restored before the apply and saved after it with if: always(): restore %d, apply %d, save %d", restore, apply, save)
	}
}

func TestCIExamples_gitlabKeepsTheJournal(t *testing.T) {
	t.Chdir("../..")
	var pipeline map[string]struct {
		Cache struct {
			Key   string   `yaml:"key"`
			Paths []string `yaml:"paths"`
			When  string   `yaml:"when"`
		} `yaml:"cache"`
		Script []string `yaml:"script"`
	}
	if err := yaml.Unmarshal([]byte(readText(t, "examples/ci/gitlab-ci.yml")), &pipeline); err != nil {
		t.Fatal(err)
	}
	job := pipeline["apply"]
	if !slices.Contains(job.Cache.Paths, journalDir+"/") || job.Cache.When != "always" || job.Cache.Key == "" {
		t.Errorf("want the apply job to cache %s/ with when: always: %+v", journalDir, job.Cache)
	}
	if !slices.ContainsFunc(job.Script, func(s string) bool { return strings.Contains(s, "terraform apply") }) {
		t.Errorf("the job applies nothing: %v", job.Script)
	}
}
