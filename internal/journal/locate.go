package journal

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Locate returns where the journal of the working directory dir is, and
// what it belongs to: in Terraform's data directory (TF_DATA_DIR, else
// .terraform), which holds what is particular to one working directory
// and is never committed, one file per workspace (TF_WORKSPACE, else the
// data directory's environment file, else "default"), since each
// workspace has a state of its own.
func Locate(dir string) (string, Identity) {
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
	return filepath.Join(data, "mobileplan", url.PathEscape(workspace)+".journal"), Identity{Dir: dir, Workspace: workspace}
}
