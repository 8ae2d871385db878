package journal

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Home is what a process's records belong to: its working directory, its
// workspace, and the state the two name. A journal restored into a new
// checkout at another path (a hosted CI job's, from the job killed before
// it) belongs to the same state when the backend is the same: a leftover
// is taken only by a process of its home, or of the same workspace and
// backend elsewhere (decide.go).
type Home struct {
	Dir       string
	Workspace string
	// Backend names the state, "" when it cannot be told: a remote
	// backend's type and the hash of its configuration, as `terraform
	// init` records them in the data directory; for local state, the
	// state file's lineage.
	Backend string
}

// Locate returns where the journal of the working directory dir is, and
// its home: in Terraform's data directory (TF_DATA_DIR, else .terraform),
// which holds what is particular to one working directory and is never
// committed, one file per workspace (TF_WORKSPACE, else the data
// directory's environment file, else "default"), since each workspace has
// a state of its own.
func Locate(dir string) (string, Home) {
	data := os.Getenv("TF_DATA_DIR")
	if data == "" {
		data = ".terraform"
	}
	if !filepath.IsAbs(data) {
		data = filepath.Join(dir, data)
	}
	workspace := os.Getenv("TF_WORKSPACE")
	if workspace == "" {
		if b, err := os.ReadFile(filepath.Join(data, "environment")); err == nil {
			workspace = strings.TrimSpace(string(b))
		}
	}
	if workspace == "" {
		workspace = "default"
	}
	home := Home{Dir: dir, Workspace: workspace, Backend: backendOf(dir, data, workspace)}
	return filepath.Join(data, "mobileplan", url.PathEscape(workspace)+".journal"), home
}

// backendOf names the state of workspace: the remote backend `terraform
// init` recorded in the data directory (its type and configuration hash,
// the same in every checkout of the same configuration), else the local
// state file's lineage; "" when neither can be read.
func backendOf(dir, data, workspace string) string {
	var initialized struct {
		Backend *struct {
			Type string          `json:"type"`
			Hash json.RawMessage `json:"hash"`
		} `json:"backend"`
	}
	if b, err := os.ReadFile(filepath.Join(data, "terraform.tfstate")); err == nil && json.Unmarshal(b, &initialized) == nil &&
		initialized.Backend != nil && initialized.Backend.Type != "" && initialized.Backend.Type != "local" {
		return fmt.Sprintf("%s:%s", initialized.Backend.Type, initialized.Backend.Hash)
	}
	state := filepath.Join(dir, "terraform.tfstate")
	if workspace != "default" {
		state = filepath.Join(dir, "terraform.tfstate.d", workspace, "terraform.tfstate")
	}
	var local struct {
		Lineage string `json:"lineage"`
	}
	if b, err := os.ReadFile(state); err == nil && json.Unmarshal(b, &local) == nil && local.Lineage != "" {
		return "local:" + local.Lineage
	}
	return ""
}
