package provider

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/protocol"
)

// A test on the one-CLI list runs its acceptance steps under Terraform
// only in `make test`: the provider is shown to be driven alike by each
// CLI there. Its trace, the calls the provider served for the test (each
// call's method and type, and the diagnostics it answered, counted; the
// in-process provider's as it serves them, a CLI test's built provider's
// from its log), is recorded under OpenTofu into cliTracesFile by `make
// cli-traces`; `make test`'s Terraform pass traces the same tests again
// and fails unless each trace equals the recorded one; its OpenTofu pass
// skips them. The provider's answers depend on the calls it is given, so
// equal traces mean the second CLI would exercise nothing the first did
// not. A change of the provider or of a test that changes a trace fails
// the check until the traces are recorded again; a test whose traces
// differ leaves the list.
//
// MOBILEPLAN_ACC_ONE_CLI chooses: "record" writes the list's traces (the
// OpenTofu run of `make cli-traces`), "check" compares (the Terraform
// pass), "skip" skips the list's tests (the OpenTofu pass); unset, every
// test runs and nothing is traced, as the hosted CI's matrix runs them.
var oneCLIMode = os.Getenv("MOBILEPLAN_ACC_ONE_CLI")

const cliTracesFile = "testdata/cli-traces.txt"

// oneCLITests are the tests the one-CLI list holds. The CLI tests among
// them (TestCLI_, which run the built provider) are those whose subject
// is how the provider reads and reaches the service; a CLI test whose
// subject is also the CLI's own part stays off the list whatever its
// trace: a kill, an interrupt or a second apply (the CLI's process and
// command line are inputs of recovery), how a CLI renders or folds
// warnings, import, generated configuration, ephemeral values, state
// upgrades, the examples' evaluation.
var oneCLITests = []string{
	"TestAccEsimDataSource_parity",
	"TestAccEsimsDataSource_parity",
	"TestAccPlanDataSource_parity",
	"TestAccPlansDataSource_parity",
	"TestAccPreflight_applyIsNotCheckedAgainstItsOwnCreates",
	"TestAccPreflight_replacementIsACreate",
	"TestAccProvider_maxRequestsPerSecondIsNeverRefused",
	"TestAccProvider_userAgent",
	"TestAccReliability_notFoundOnRefreshPlansCreate",
	"TestAccReliability_refreshFailuresKeepState",
	"TestAccSubscriptionDataSource_parity",
	"TestAccSubscription_changeReplaces",
	"TestAccSubscription_goneAtServiceIsRecreated",
	"TestAccSubscription_inlinePlan",
	"TestAccSubscription_planID_parity",
	"TestAccSubscription_planTimeErrors",
	"TestAccSubscription_refreshFollowsService_parity",
	"TestAccSubscription_renewal",
	"TestAccSubscription_renewalOptionChangesInPlace",
	"TestAccSubscription_renewalStoppedByPreventDestroy",
	"TestAccSubscription_timeoutsInState",
	"TestAccSubscription_wrongBaseURLKeepsState",
	"TestAccSubscriptionsDataSource_expiresBefore",
	"TestAccSubscriptionsDataSource_expiresBeforeValidated",
	"TestAccSubscriptionsDataSource_parity",
	"TestCLI_applyUnderAQuotaEndsWithinItsCreateTimeout",
	"TestCLI_fiftyUnderRateLimitsAndErrors",
	"TestCLI_pagedRefreshFailedPageFallsBack",
	"TestCLI_pagedRefreshGoneSubscription",
	"TestCLI_pagedRefreshOfALargeStateSameRequestsEveryRun",
	"TestCLI_pagedRefreshOff",
	"TestCLI_pagedRefreshReadsTheFleetByPages",
	"TestCLI_pagedRefreshSeesChangesAtTheService",
	"TestCLI_pagedRefreshSmallStateInLargeAccount",
	"TestCLI_pagedRefreshTwoConfigurationsEachItsOwn",
	"TestCLI_plainHTTPRefusedThroughProxy",
	"TestCLI_planUnderAQuotaIsBoundedAndSaysSo",
	"TestCLI_privateCAThroughProxy",
	"TestProvider_environment",
}

// traces holds each top-level test's calls, when the run traces.
var traces = struct {
	sync.Mutex
	of map[string]map[string]int // test -> call -> count
}{of: map[string]map[string]int{}}

// providersFor are plugin-testing's factories for t, with opts: the
// composition the tests run, its calls traced under t's test when the
// run records or checks the one-CLI list.
func providersFor(t *testing.T, opts ...Option) map[string]func() (tfprotov6.ProviderServer, error) {
	t.Helper()
	test, traced := tracedTest(t)
	server := testComposition(opts...)
	return map[string]func() (tfprotov6.ProviderServer, error){
		"mobileplan": func() (tfprotov6.ProviderServer, error) {
			s := server()
			if !traced {
				return s, nil
			}
			return tracingServer{Server: s.(protocol.Server), test: test}, nil
		},
	}
}

// tracedTest is t's top-level test, and whether the run traces its calls:
// every test's when it records, the listed tests' when it checks.
func tracedTest(t *testing.T) (string, bool) {
	test, _, _ := strings.Cut(t.Name(), "/")
	return test, oneCLIMode == "record" || (oneCLIMode == "check" && slices.Contains(oneCLITests, test))
}

// builtProviderTraceEnv is the environment that traces the calls of the
// built provider a CLI test runs, when the run traces t's test: the CLI
// writes the provider's log into a file of t's (terraform-plugin-go logs
// each call it serves, and each diagnostic it answers, at TRACE), which is
// read into the test's trace when t ends. The framework's own lines, many
// per call, are left out.
func builtProviderTraceEnv(t *testing.T) []string {
	t.Helper()
	test, traced := tracedTest(t)
	if !traced {
		return nil
	}
	file := filepath.Join(t.TempDir(), "provider.log")
	t.Cleanup(func() {
		text, err := os.ReadFile(file)
		switch {
		case errors.Is(err, fs.ErrNotExist): // no command ran
			return
		case err != nil:
			t.Errorf("reading the provider's log for the one-CLI trace: %v", err)
			return
		}
		for _, c := range loggedCalls(string(text)) {
			traceCall(test, c.method, c.typ, c.diags)
		}
	})
	return []string{"TF_LOG_PROVIDER=TRACE", "TF_LOG_SDK_FRAMEWORK=OFF", "TF_LOG_PATH=" + file}
}

// loggedCall is a call the provider's log says it served.
type loggedCall struct {
	method, typ string
	diags       []*tfprotov6.Diagnostic
}

var (
	// A log record starts with its time and level; a value of many lines
	// continues it on lines that do not.
	logRecordStart = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\S+ \[[A-Z]+\] `)
	logMessage     = regexp.MustCompile(`provider\.terraform-provider-mobileplan: (Served request|Response contains (error|warning) diagnostic):`)
	logRequestID   = regexp.MustCompile(`\btf_req_id=(\S+)`)
	logRPC         = regexp.MustCompile(`\btf_rpc=(\S+)`)
	logType        = regexp.MustCompile(`\btf_(?:resource|data_source|list_resource)_type=(\S+)`)
	logSummary     = regexp.MustCompile(`\bdiagnostic_summary=("(?:[^"\\]|\\.)*"|\S+)`)
)

// tracedMethods are the calls tracingServer traces, as the in-process
// provider's tests are traced.
var tracedMethods = []string{
	"ValidateResourceConfig", "ValidateDataResourceConfig", "ValidateProviderConfig", "ConfigureProvider",
	"UpgradeResourceState", "ReadResource", "PlanResourceChange", "ApplyResourceChange",
	"ImportResourceState", "MoveResourceState", "ReadDataSource", "ListResource",
}

// loggedCalls reads the calls a CLI's provider log (TF_LOG_PROVIDER=TRACE)
// says the provider served, each with the diagnostics it answered, in the
// order they were served. A call the provider did not finish serving (its
// process killed) is not one.
func loggedCalls(text string) []loggedCall {
	starts := logRecordStart.FindAllStringIndex(text, -1)
	diags := map[string][]*tfprotov6.Diagnostic{} // request id -> diagnostics so far
	var calls []loggedCall
	for i, start := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		record := text[start[0]:end]
		// Most records are neither a served call nor a diagnostic: they
		// are passed over before their fields are read.
		msg := logMessage.FindStringSubmatch(record)
		if msg == nil {
			continue
		}
		id := logRequestID.FindStringSubmatch(record)
		rpc := logRPC.FindStringSubmatch(record)
		if id == nil || rpc == nil || !slices.Contains(tracedMethods, rpc[1]) {
			continue
		}
		if msg[1] != "Served request" {
			severity := tfprotov6.DiagnosticSeverityError
			if msg[2] == "warning" {
				severity = tfprotov6.DiagnosticSeverityWarning
			}
			summary := ""
			if m := logSummary.FindStringSubmatch(record); m != nil {
				summary = m[1]
				if unquoted, err := strconv.Unquote(summary); err == nil {
					summary = unquoted
				}
			}
			diags[id[1]] = append(diags[id[1]], &tfprotov6.Diagnostic{Severity: severity, Summary: summary})
			continue
		}
		c := loggedCall{method: rpc[1], diags: diags[id[1]]}
		if typ := logType.FindStringSubmatch(record); typ != nil {
			c.typ = typ[1]
		}
		delete(diags, id[1])
		calls = append(calls, c)
	}
	return calls
}

// skipOneCLITests makes a run under "skip" leave the list's tests out, as
// -skip does: a listed test is not started, and prints no line of its own.
func skipOneCLITests() {
	if oneCLIMode != "skip" {
		return
	}
	flag.Parse()
	skip := "^(" + strings.Join(oneCLITests, "|") + ")$"
	if given := flag.Lookup("test.skip").Value.String(); given != "" {
		skip = given + "|" + skip
	}
	if err := flag.Set("test.skip", skip); err != nil {
		panic(err)
	}
	fmt.Fprintf(os.Stderr, "one-CLI list: %d tests left out, run under Terraform only (%s)\n", len(oneCLITests), cliTracesFile)
}

// traceCall counts a call of test. The provider-level calls, which a CLI
// makes each time it starts the provider (Terraform starts it once more
// than OpenTofu in some commands), count once: what the provider answers
// them is traced, how often a CLI asks is the CLI's own. A subscription's
// id in a summary is written sub_<id>: the service issues new ones each run.
func traceCall(test, method, typ string, diags []*tfprotov6.Diagnostic) {
	call := describeCall(method, typ, diags)
	traces.Lock()
	defer traces.Unlock()
	if traces.of[test] == nil {
		traces.of[test] = map[string]int{}
	}
	if typ == "" {
		traces.of[test][call] = 1
		return
	}
	traces.of[test][call]++
}

// describeCall is a call as a trace line writes it.
func describeCall(method, typ string, diags []*tfprotov6.Diagnostic) string {
	call := strings.TrimSpace(method + " " + typ)
	for _, d := range diags {
		call += fmt.Sprintf(" [%s: %s]", d.Severity, anIssuedID.ReplaceAllString(d.Summary, "sub_<id>"))
	}
	return call
}

var anIssuedID = regexp.MustCompile(`\bsub_[0-9a-f]{8,}\b`)

// formatTraces is the traces of tests, one line a call, sorted.
func formatTraces(of map[string]map[string]int, tests []string) string {
	var b strings.Builder
	for _, test := range tests {
		calls := make([]string, 0, len(of[test]))
		for call, n := range of[test] {
			calls = append(calls, fmt.Sprintf("%s %dx %s\n", test, n, call))
		}
		sort.Strings(calls)
		b.WriteString(strings.Join(calls, ""))
	}
	return b.String()
}

// parseTraces reads what formatTraces wrote.
func parseTraces(text string) map[string]map[string]int {
	of := map[string]map[string]int{}
	for line := range strings.Lines(text) {
		test, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		count, call, _ := strings.Cut(rest, " ")
		var n int
		if _, err := fmt.Sscanf(count, "%dx", &n); err != nil {
			continue
		}
		if of[test] == nil {
			of[test] = map[string]int{}
		}
		of[test][call] = n
	}
	return of
}

// finishCLITraces records, or checks against file, as mode says, the
// traces of the listed tests, at the end of the run; a failure to check is
// a failed run, and a failed run records nothing.
func finishCLITraces(mode, file string, listed []string, of map[string]map[string]int, failed bool) error {
	switch mode {
	case "record":
		if failed {
			return fmt.Errorf("the run failed: %s left as it was", file)
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		return os.WriteFile(file, []byte(formatTraces(of, listed)), 0o644)
	case "check":
		text, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		recorded := parseTraces(string(text))
		var differ []string
		for _, test := range listed {
			got, want := formatTraces(of, []string{test}), formatTraces(recorded, []string{test})
			if got != want {
				differ = append(differ, fmt.Sprintf("%s: under this CLI\n%sunder OpenTofu (%s)\n%s", test, got, file, want))
			}
		}
		if len(differ) > 0 {
			return fmt.Errorf("the one-CLI list's traces differ; run `make cli-traces`, and take off the list a test whose traces still differ:\n%s", strings.Join(differ, "\n"))
		}
	}
	return nil
}

// tracingServer traces each call that serves a type of the provider.
type tracingServer struct {
	protocol.Server
	test string
}

func (s tracingServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := s.Server.ValidateResourceConfig(ctx, req)
	if resp != nil {
		traceCall(s.test, "ValidateResourceConfig", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.Server.ValidateDataResourceConfig(ctx, req)
	if resp != nil {
		traceCall(s.test, "ValidateDataResourceConfig", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.Server.ValidateProviderConfig(ctx, req)
	if resp != nil {
		traceCall(s.test, "ValidateProviderConfig", "", resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	resp, err := s.Server.ConfigureProvider(ctx, req)
	if resp != nil {
		traceCall(s.test, "ConfigureProvider", "", resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	resp, err := s.Server.UpgradeResourceState(ctx, req)
	if resp != nil {
		traceCall(s.test, "UpgradeResourceState", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := s.Server.ReadResource(ctx, req)
	if resp != nil {
		traceCall(s.test, "ReadResource", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.Server.PlanResourceChange(ctx, req)
	if resp != nil {
		traceCall(s.test, "PlanResourceChange", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.Server.ApplyResourceChange(ctx, req)
	if resp != nil {
		traceCall(s.test, "ApplyResourceChange", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	resp, err := s.Server.ImportResourceState(ctx, req)
	if resp != nil {
		traceCall(s.test, "ImportResourceState", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) MoveResourceState(ctx context.Context, req *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	resp, err := s.Server.MoveResourceState(ctx, req)
	if resp != nil {
		traceCall(s.test, "MoveResourceState", req.TargetTypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.Server.ReadDataSource(ctx, req)
	if resp != nil {
		traceCall(s.test, "ReadDataSource", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s tracingServer) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	resp, err := s.Server.ListResource(ctx, req)
	if err == nil {
		traceCall(s.test, "ListResource", req.TypeName, nil)
	}
	return resp, err
}

// The list names tests of this package, each once, and the recorded file
// holds a trace of each and of nothing else: a renamed test or one added
// to the list without recording fails here, before any CLI runs.
func TestOneCLIList_namesRecordedTestsOfThisPackage(t *testing.T) {
	t.Parallel()
	defined := map[string]bool{}
	for _, name := range testFunctions(t) {
		defined[name] = true
	}
	text, err := os.ReadFile(cliTracesFile)
	if err != nil {
		t.Fatal(err)
	}
	recorded := parseTraces(string(text))
	seen := map[string]bool{}
	for _, test := range oneCLITests {
		switch {
		case seen[test]:
			t.Errorf("%s is listed twice", test)
		case !defined[test]:
			t.Errorf("%s is listed but no such test is defined", test)
		case len(recorded[test]) == 0:
			t.Errorf("%s is listed but %s holds no trace of it: run make cli-traces", test, cliTracesFile)
		}
		seen[test] = true
	}
	for test := range recorded {
		if !seen[test] {
			t.Errorf("%s holds a trace of %s, which is not listed: run make cli-traces", cliTracesFile, test)
		}
	}
}

func TestFinishCLITraces(t *testing.T) {
	t.Parallel()
	recorded := map[string]map[string]int{"TestA": {"PlanResourceChange mobileplan_subscription": 2, "ConfigureProvider": 1}}
	for _, row := range []struct {
		rule    string
		mode    string
		traced  map[string]map[string]int
		failed  bool
		wantErr string // "" for none
		wantRec bool   // the file holds the traces afterwards
	}{
		{rule: "equal traces pass the check", mode: "check", traced: recorded},
		{rule: "a call more fails the check", mode: "check", traced: map[string]map[string]int{"TestA": {"PlanResourceChange mobileplan_subscription": 3, "ConfigureProvider": 1}}, wantErr: "TestA: under this CLI"},
		{rule: "a listed test not traced fails the check", mode: "check", traced: map[string]map[string]int{}, wantErr: "TestA"},
		{rule: "a run records the listed tests", mode: "record", traced: recorded, wantRec: true},
		{rule: "a failed run records nothing", mode: "record", traced: recorded, failed: true, wantErr: "the run failed"},
		{rule: "no mode neither records nor checks", mode: "", traced: map[string]map[string]int{}},
	} {
		t.Run(row.rule, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "traces.txt")
			if row.mode == "check" {
				if err := os.WriteFile(file, []byte(formatTraces(recorded, []string{"TestA"})), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := finishCLITraces(row.mode, file, []string{"TestA"}, row.traced, row.failed)
			switch {
			case row.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case row.wantErr != "" && (err == nil || !strings.Contains(err.Error(), row.wantErr)):
				t.Errorf("error %v, want one saying %q", err, row.wantErr)
			}
			if row.wantRec {
				text, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if got := parseTraces(string(text)); !maps.EqualFunc(got, recorded, maps.Equal) {
					t.Errorf("recorded %v, want %v", got, recorded)
				}
			}
		})
	}
}

// A subscription's id in a summary is written alike whatever the service
// issued, and a provider-level call counts once however often it comes.
func TestTraceCall_writesWhatEachCLISeesAlike(t *testing.T) {
	t.Parallel()
	test := "TestTraceCall_" + t.Name()
	diags := func(id string) []*tfprotov6.Diagnostic {
		return []*tfprotov6.Diagnostic{{Severity: tfprotov6.DiagnosticSeverityError, Summary: "Could not read subscription " + id}}
	}
	traceCall(test, "ReadResource", "mobileplan_subscription", diags("sub_0bb4b8e82ca7541c"))
	traceCall(test, "ReadResource", "mobileplan_subscription", diags("sub_170efada5c123089"))
	traceCall(test, "ConfigureProvider", "", nil)
	traceCall(test, "ConfigureProvider", "", nil)
	traces.Lock()
	got := formatTraces(traces.of, []string{test})
	traces.Unlock()
	want := test + " 1x ConfigureProvider\n" + test + " 2x ReadResource mobileplan_subscription [ERROR: Could not read subscription sub_<id>]\n"
	if got != want {
		t.Errorf("traced\n%swant\n%s", got, want)
	}
}

// The calls a CLI's provider log shows, as both CLIs write it: a served
// call with its type and its diagnostics (a detail of many lines among
// them), a provider-level call, a call not traced, and a call the
// provider never finished serving.
func TestLoggedCalls(t *testing.T) {
	t.Parallel()
	const log = `2026-12-02T14:38:55.100Z [TRACE] provider.terraform-provider-mobileplan: Received request: tf_req_id=r1 tf_rpc=GetProviderSchema @module=sdk.proto
2026-12-02T14:38:55.101Z [TRACE] provider.terraform-provider-mobileplan: Served request: tf_req_id=r1 tf_rpc=GetProviderSchema @module=sdk.proto
2026-12-02T14:38:55.102Z [TRACE] provider.terraform-provider-mobileplan: Served request: tf_rpc=ConfigureProvider tf_req_id=r2 @module=sdk.proto
2026-12-02T14:38:55.262Z [ERROR] provider.terraform-provider-mobileplan: Response contains error diagnostic: tf_req_id=r3 tf_rpc=ReadDataSource @module=sdk.proto tf_data_source_type=mobileplan_plan diagnostic_severity=ERROR diagnostic_summary="No plan \"plan_nope\""
  diagnostic_detail=
  | The service has no plan with id "plan_nope".
  | 2026-12-02T14:38:55.262Z [TRACE] provider.terraform-provider-mobileplan: Served request: tf_req_id=r9 tf_rpc=ReadResource
   timestamp=2026-12-02T14:38:55.260Z
2026-12-02T14:38:55.263Z [WARN]  provider.terraform-provider-mobileplan: Response contains warning diagnostic: tf_req_id=r3 tf_rpc=ReadDataSource diagnostic_summary=Deprecated tf_data_source_type=mobileplan_plan
2026-12-02T14:38:55.264Z [TRACE] provider.terraform-provider-mobileplan: Served request: tf_rpc=ReadDataSource tf_req_id=r3 tf_data_source_type=mobileplan_plan
2026-12-02T14:38:55.265Z [TRACE] provider.terraform-provider-mobileplan: Received request: tf_req_id=r4 tf_rpc=ApplyResourceChange tf_resource_type=mobileplan_subscription
2026-12-02T14:38:55.266Z [TRACE] provider.terraform-provider-mobileplan: Served request: tf_req_id=r5 tf_rpc=PlanResourceChange tf_resource_type=mobileplan_subscription
`
	got := loggedCalls(log)
	want := []loggedCall{
		{method: "ConfigureProvider"},
		{method: "ReadDataSource", typ: "mobileplan_plan", diags: []*tfprotov6.Diagnostic{
			{Severity: tfprotov6.DiagnosticSeverityError, Summary: `No plan "plan_nope"`},
			{Severity: tfprotov6.DiagnosticSeverityWarning, Summary: "Deprecated"},
		}},
		{method: "PlanResourceChange", typ: "mobileplan_subscription"},
	}
	if fmt.Sprint(describeCalls(got)) != fmt.Sprint(describeCalls(want)) {
		t.Errorf("loggedCalls:\n got %q\nwant %q", describeCalls(got), describeCalls(want))
	}
}

func describeCalls(calls []loggedCall) []string {
	var out []string
	for _, c := range calls {
		out = append(out, describeCall(c.method, c.typ, c.diags))
	}
	return out
}
