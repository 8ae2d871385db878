package process

import (
	"fmt"
	"slices"
	"strings"
)

// What the provider reads of Terraform's command line (ParentArgs), which
// tells its providers nothing of -target or -exclude, nor whether a
// process applies a saved plan.

// Limited says why a run with Terraform's command line args (err: they
// could not be read) and the TF_CLI_ARGS variables getenv gives cannot
// see every subscription its state holds; "" when it can.
func Limited(args []string, err error, getenv func(string) string) string {
	if err != nil {
		return fmt.Sprintf("the provider cannot read Terraform's command line here (%v), so it cannot tell whether -target limits this run", err)
	}
	for _, v := range []string{"TF_CLI_ARGS", "TF_CLI_ARGS_plan", "TF_CLI_ARGS_apply"} {
		args = append(args, strings.Fields(getenv(v))...)
	}
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		// -target and -exclude, and OpenTofu's -target-file and
		// -exclude-file.
		if strings.HasPrefix(a, "-") && (name == "target" || name == "exclude" || strings.HasPrefix(name, "target-") || strings.HasPrefix(name, "exclude-")) {
			return "this run is limited to some resources (-" + name + "), so it cannot see every subscription its state holds: plan or apply again without it"
		}
	}
	return ""
}

// valueFlags are the options of Terraform's and OpenTofu's plan and apply
// that may take their value as the next argument.
var valueFlags = []string{"var", "var-file", "target", "target-file", "exclude", "exclude-file", "replace", "state", "state-out", "backup",
	"parallelism", "lock-timeout", "out", "generate-config-out", "chdir"}

// AppliesAPlanFile reports whether a CLI command line is apply (or
// destroy) of a saved plan: an argument after the command that is neither
// an option nor an option's value.
func AppliesAPlanFile(args []string) bool {
	command := -1
	for i, a := range args {
		if i > 0 && !strings.HasPrefix(a, "-") {
			command = i
			break
		}
	}
	if command < 0 || (args[command] != "apply" && args[command] != "destroy") {
		return false
	}
	for i := command + 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !hasValue && slices.Contains(valueFlags, name) {
				i++ // its value
			}
			continue
		}
		return true
	}
	return false
}
