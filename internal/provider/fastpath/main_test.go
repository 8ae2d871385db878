package fastpath

import (
	"os"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

func TestMain(m *testing.M) { os.Exit(acctest.Main(m)) }

// testProvider is the provider binary of this package's CLI tests: the
// provider with every speed-up, whatever main.go composes.
const testProvider = "github.com/mobileplan/terraform-provider-mobileplan/internal/provider/fastpath/internal/testprovider"

// newTerraformCLI is a CLI running testProvider.
func newTerraformCLI(t *testing.T, extraEnv ...string) *acctest.CLI {
	t.Helper()
	return acctest.NewCLI(t, testProvider, extraEnv...)
}
