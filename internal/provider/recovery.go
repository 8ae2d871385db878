package provider

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/process"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/recovery"
)

// The provider's adapter to its recovery session (package recovery): the
// session holds the journal, the run's facts and every decision; this
// file only translates what the framework hands the provider into them.
// The seam (protocol_server.go) tells the session what the state holds
// and gives its report; the resource's Create takes and creates through
// it; Configure opens it.

// newSession is the recovery session of a provider process in the working
// directory dir: parentArgs reads Terraform's command line, which alone
// tells whether -target limits the run, or whether the process applies a
// saved plan.
func newSession(dir string, hold func() (release func()), parentArgs func() ([]string, error)) *recovery.Session {
	return recovery.New(recovery.Config{
		Dir:  dir,
		Hold: hold,
		Limited: func() string {
			args, err := parentArgs()
			return process.Limited(args, err, os.Getenv)
		},
		AppliesPlanFile: func() bool {
			args, err := parentArgs()
			return err == nil && process.AppliesAPlanFile(args)
		},
		Stopping: func() bool {
			select {
			case <-process.ParentGone():
				return true
			default:
				return false
			}
		},
	})
}

// requestOfConfig is what a create of the resource's configuration config
// asks for, as the journal names it (recovery.RequestOf); "" when its plan
// is not known yet.
func requestOfConfig(ctx context.Context, config tfsdk.Config) string {
	var planID types.String
	var inline types.Object
	if config.GetAttribute(ctx, path.Root("plan_id"), &planID).HasError() || config.GetAttribute(ctx, path.Root("plan"), &inline).HasError() {
		return ""
	}
	switch {
	case !planID.IsNull() && !planID.IsUnknown():
		return recovery.RequestOf(client.CreateSubscriptionRequest{PlanID: planID.ValueString()})
	case !inline.IsNull() && !inline.IsUnknown():
		var in inlinePlanModel
		if inline.As(ctx, &in, basetypes.ObjectAsOptions{}).HasError() || in.CoverageID.IsUnknown() || in.DataMBs.IsUnknown() || in.PeriodDays.IsUnknown() {
			return ""
		}
		return recovery.RequestOf(client.CreateSubscriptionRequest{Plan: &client.InlinePlan{CoverageID: in.CoverageID.ValueString(), DataMBs: in.DataMBs.ValueInt64(), PeriodDays: in.PeriodDays.ValueInt64()}})
	}
	return ""
}
