package process

import (
	"errors"
	"strings"
	"testing"
)

// Terraform tells its providers nothing of -target or -exclude: the
// provider reads them from the command line and TF_CLI_ARGS, and when it
// cannot read the command line it counts the run as limited.
func TestLimited(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		err  error
		env  map[string]string
		want string // a phrase of the reason; "" for a whole run
	}{
		"whole":                 {args: []string{"terraform", "apply", "-auto-approve"}},
		"-target=":              {args: []string{"terraform", "apply", "-target=mobileplan_subscription.a"}, want: "(-target)"},
		"-target value":         {args: []string{"tofu", "plan", "-target", "mobileplan_subscription.a"}, want: "(-target)"},
		"--target":              {args: []string{"terraform", "apply", "--target=x"}, want: "(-target)"},
		"-exclude":              {args: []string{"tofu", "apply", "-exclude=x"}, want: "(-exclude)"},
		"-target-file":          {args: []string{"tofu", "apply", "-target-file=targets.txt"}, want: "(-target-file)"},
		"-exclude-file":         {args: []string{"tofu", "plan", "-exclude-file", "x.txt"}, want: "(-exclude-file)"},
		"TF_CLI_ARGS":           {args: []string{"terraform", "apply"}, env: map[string]string{"TF_CLI_ARGS": "-target=x"}, want: "(-target)"},
		"TF_CLI_ARGS_plan":      {args: []string{"terraform", "plan"}, env: map[string]string{"TF_CLI_ARGS_plan": "-lock=false -target=x"}, want: "(-target)"},
		"a value, not a flag":   {args: []string{"terraform", "apply", "-var", "target=x"}},
		"-targets are prefixed": {args: []string{"terraform", "apply", "-targetx"}},
		"unreadable":            {err: errors.New("no /proc"), want: "cannot read Terraform's command line"},
	} {
		got := Limited(c.args, c.err, func(v string) string { return c.env[v] })
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: Limited = %q, want %q", name, got, c.want)
		}
	}
}

// Whether a process is the apply of a saved plan, from the CLI's command
// line: an argument after apply (or destroy) that is no option's value.
func TestAppliesAPlanFile(t *testing.T) {
	for args, want := range map[string]bool{
		"terraform apply": false,
		"terraform apply -auto-approve -input=false":           false,
		"terraform apply tfplan":                               true,
		"tofu apply -input=false tfplan":                       true,
		"terraform -chdir=infra apply tfplan":                  true,
		"terraform apply -var foo=bar":                         false,
		"terraform apply -target mobileplan_subscription.a":    false,
		"terraform apply -var foo=bar tfplan":                  true,
		"terraform plan -out tfplan":                           false,
		"terraform destroy tfplan":                             true,
		"terraform apply -parallelism 5 -lock-timeout 10s":     false,
		"terraform apply -replace=mobileplan_subscription.a x": true,
	} {
		if got := AppliesAPlanFile(strings.Fields(args)); got != want {
			t.Errorf("%q: %v, want %v", args, got, want)
		}
	}
}
