package provider

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

// The token kept out of saved plans and state, the two ways the provider
// page shows: a variable declared ephemeral passed to api_token, and
// MOBILEPLAN_API_TOKEN. Each saved plan is searched byte for byte (the
// zip, and every file in it), as is `show -json` of it and the state after
// applying it. A variable that is only sensitive is the control: the CLI
// writes its value into the plan file, and the same search must find it
// there, or it could not find a leak either.

const ephemeralTokenConfig = `
variable "mobileplan_token" {
  type      = string
  ephemeral = true
  sensitive = true
}

provider "mobileplan" {
  base_url  = %q
  api_token = var.mobileplan_token
}
`

const sensitiveTokenConfig = `
variable "mobileplan_token" {
  type      = string
  sensitive = true
}

provider "mobileplan" {
  base_url  = %q
  api_token = var.mobileplan_token
}
`

const environmentTokenConfig = `
provider "mobileplan" {
  base_url = %q
}
`

const tokenTestResources = `
terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}

resource "mobileplan_subscription" "s" {
  count   = %d
  plan_id = "plan_001"
}
`

func TestCLI_ephemeralTokenNeverInSavedPlanOrState(t *testing.T) {
	t.Parallel()
	for name, route := range map[string]struct {
		config string
		// given is how the token is given to plan and apply.
		given func(token string) (env, args []string)
		// refused is what the apply of the saved plan without the token says.
		refused string
		// leaks: the control, whose plan file must hold the token.
		leaks bool
	}{
		"ephemeral variable": {
			config:  ephemeralTokenConfig,
			given:   func(token string) ([]string, []string) { return nil, []string{"-var", "mobileplan_token=" + token} },
			refused: "Error: No value for required variable",
		},
		"ephemeral variable from TF_VAR": {
			config:  ephemeralTokenConfig,
			given:   func(token string) ([]string, []string) { return []string{"TF_VAR_mobileplan_token=" + token}, nil },
			refused: "Error: No value for required variable",
		},
		"environment variable": {
			config:  environmentTokenConfig,
			given:   func(token string) ([]string, []string) { return []string{EnvAPIToken + "=" + token}, nil },
			refused: "Error: Missing api_token",
		},
		"sensitive variable, the control": {
			config: sensitiveTokenConfig,
			given:  func(token string) ([]string, []string) { return nil, []string{"-var", "mobileplan_token=" + token} },
			leaks:  true,
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A token of its own, long and unlike anything else the files
			// hold, so that finding it means it was copied.
			token := fmt.Sprintf("tok-ephemeral-%x", []byte(t.Name()))[:48]
			srv := emulatortest.Start(t, emulator.Options{Token: token})
			tf := newTerraformCLI(t)
			env, args := route.given(token)
			cli, _ := acctest.CLINameVersion(t)
			// A state to start from, as a pipeline has: the first apply of
			// a configuration writes one even when it fails.
			tf.Write("main.tf", fmt.Sprintf(route.config, srv.URL)+fmt.Sprintf(tokenTestResources, 1))
			if out, code := tf.Run(env, append([]string{"apply", "-input=false", "-auto-approve"}, args...)...); code != 0 {
				t.Fatalf("first apply exited %d:\n%s", code, out)
			}
			tf.Write("main.tf", fmt.Sprintf(route.config, srv.URL)+fmt.Sprintf(tokenTestResources, 2))

			out, code := tf.Run(env, append([]string{"plan", "-input=false", "-out=tfplan"}, args...)...)
			if code != 0 {
				t.Fatalf("plan -out exited %d:\n%s", code, out)
			}
			shown := tf.Must("show", "-json", "tfplan")
			if !strings.Contains(shown, `"mobileplan_subscription"`) {
				t.Fatalf("show -json of the plan does not show the subscription; the search would see nothing:\n%s", shown)
			}
			places := tokenIn(t, token, filepath.Join(tf.Dir, "tfplan"))
			if strings.Contains(shown, token) {
				places = append(places, "show -json of the plan")
			}
			switch {
			case route.leaks && len(places) == 0:
				t.Fatalf("%s did not write a sensitive variable's value into the plan file, or the search cannot find it there", cli)
			case route.leaks:
				t.Logf("%s: a variable only sensitive is in %s", cli, strings.Join(places, ", "))
			case len(places) > 0:
				t.Errorf("%s: the token is in %s", cli, strings.Join(places, ", "))
			}

			// Applying the saved plan without the token.
			if !route.leaks {
				out, code = tf.Run(nil, "apply", "-input=false", "tfplan")
				if code == 0 || !strings.Contains(out, route.refused) {
					t.Fatalf("apply of the saved plan without the token exited %d, want %q:\n%s", code, route.refused, out)
				}
				t.Logf("%s: apply of the saved plan without the token exited %d:\n%s", cli, code, out)
				if n := srv.Stats().Subscriptions; n != 1 {
					t.Fatalf("apply without the token left %d subscriptions, want the first apply's 1", n)
				}
				if _, err := os.Stat(filepath.Join(tf.Dir, "tfplan")); err != nil {
					t.Fatalf("the refused apply removed the plan: %v", err)
				}
			}
			applyArgs := append([]string{"apply", "-input=false"}, args...)
			if route.leaks {
				applyArgs = []string{"apply", "-input=false"} // the plan holds the value
			}
			out, code = tf.Run(env, append(applyArgs, "tfplan")...)
			if code != 0 {
				t.Fatalf("apply of the saved plan with the token exited %d:\n%s", code, out)
			}
			if n := srv.Stats().Subscriptions; n != 2 {
				t.Fatalf("%d subscriptions after the apply, want 2:\n%s", n, out)
			}
			state := tf.Read("terraform.tfstate")
			if !strings.Contains(state, `"mobileplan_subscription"`) {
				t.Fatalf("the state holds no subscription; the search would see nothing:\n%s", state)
			}
			if strings.Contains(state, token) {
				t.Errorf("%s: the token is in the state", cli)
			}
		})
	}
}

// tokenIn names the places of a saved plan that hold token: the file's
// bytes, and each file of the zip it is.
func tokenIn(t *testing.T, token, planFile string) []string {
	t.Helper()
	raw, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	var places []string
	if bytes.Contains(raw, []byte(token)) {
		places = append(places, "the plan file's bytes")
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatalf("the plan file is not a zip: %v", err)
	}
	if len(zr.File) == 0 {
		t.Fatal("the plan file holds no file; the search would see nothing")
	}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(r)
		_ = r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(content, []byte(token)) {
			places = append(places, "the plan file's "+f.Name)
		}
	}
	return places
}

// A saved plan of a configuration without state yet, applied first without
// the token: the refused apply writes the first, empty state, and the plan,
// made against none, can then no longer be applied: the pipeline must
// plan again. With an ephemeral variable the CLI refuses before it writes
// any state, and the plan stays good.
func TestCLI_tokenMissingAtFirstApply(t *testing.T) {
	t.Parallel()
	for name, route := range map[string]struct {
		config string
		given  func(token string) (env, args []string)
		stale  bool
	}{
		"ephemeral variable": {
			config: ephemeralTokenConfig,
			given:  func(token string) ([]string, []string) { return nil, []string{"-var", "mobileplan_token=" + token} },
		},
		"environment variable": {
			config: environmentTokenConfig,
			given:  func(token string) ([]string, []string) { return []string{EnvAPIToken + "=" + token}, nil },
			stale:  true,
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startEmulator(t)
			tf := newTerraformCLI(t)
			tf.Write("main.tf", fmt.Sprintf(route.config, srv.URL)+fmt.Sprintf(tokenTestResources, 1))
			env, args := route.given(srv.Token)
			cli, _ := acctest.CLINameVersion(t)
			if out, code := tf.Run(env, append([]string{"plan", "-input=false", "-out=tfplan"}, args...)...); code != 0 {
				t.Fatalf("plan -out exited %d:\n%s", code, out)
			}
			if out, code := tf.Run(nil, "apply", "-input=false", "tfplan"); code == 0 {
				t.Fatalf("apply of the saved plan without the token succeeded:\n%s", out)
			}
			_, err := os.Stat(filepath.Join(tf.Dir, "terraform.tfstate"))
			if wrote := err == nil; wrote != route.stale {
				t.Errorf("%s: the refused apply wrote a state: %t, want %t", cli, wrote, route.stale)
			}
			out, code := tf.Run(env, append(append([]string{"apply", "-input=false"}, args...), "tfplan")...)
			switch {
			case route.stale && (code == 0 || !strings.Contains(out, "Saved plan is stale")):
				t.Errorf("%s: apply with the token after the refused one exited %d, want the plan stale:\n%s", cli, code, out)
			case !route.stale && code != 0:
				t.Errorf("%s: apply with the token after the refused one exited %d:\n%s", cli, code, out)
			}
			want := 1
			if route.stale {
				want = 0
			}
			if n := srv.Stats().Subscriptions; n != want {
				t.Errorf("%s: %d subscriptions, want %d", cli, n, want)
			}
		})
	}
}
