package fastpath_test

import (
	"os"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

func TestMain(m *testing.M) { os.Exit(acctest.Main(m)) }
