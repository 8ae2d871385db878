package process

import (
	"os"

	plugin "github.com/hashicorp/go-plugin"
)

// ownSocketDir gives go-plugin's unix socket a directory of this process's
// own and returns the function that removes it. go-plugin removes its socket
// only when the server is closed; a provider that exits because Terraform
// was killed (see watchParent) never closes it, and would leave a socket
// file in the temp dir on every such run. Inside our own directory, one
// RemoveAll cleans up either way. Without a directory (it cannot be made),
// go-plugin's default applies and nothing is removed.
func ownSocketDir() (remove func()) {
	dir, err := os.MkdirTemp(os.Getenv(plugin.EnvUnixSocketDir), "mobileplan-")
	if err != nil {
		return func() {}
	}
	if err := os.Setenv(plugin.EnvUnixSocketDir, dir); err != nil {
		_ = os.Remove(dir)
		return func() {}
	}
	return func() { _ = os.RemoveAll(dir) }
}
