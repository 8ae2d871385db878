package recovery

import (
	"context"
	"slices"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// Service is what a session reads of the service: its list, newest first,
// a page at a time, and one subscription. ServiceOf makes one of a
// client; the tests serve their own.
type Service interface {
	List() Pager
	Subscription(ctx context.Context, id string) (*client.Subscription, error)
}

// Pager reads the service's list a page at a time. Each page comes with
// the service's clock less this machine's, as that page's Date header
// showed it (zero when none did).
type Pager interface {
	Next(ctx context.Context) (subs []client.Subscription, more bool, offset time.Duration, err error)
}

// ServiceOf is c as a session reads it.
func ServiceOf(c *client.Client) Service { return clientService{c} }

type clientService struct{ c *client.Client }

func (s clientService) List() Pager { return clientPages{s.c, s.c.SubscriptionPages()} }

func (s clientService) Subscription(ctx context.Context, id string) (*client.Subscription, error) {
	return s.c.GetSubscription(ctx, id)
}

type clientPages struct {
	c     *client.Client
	pages *client.Pages[client.Subscription]
}

func (p clientPages) Next(ctx context.Context) ([]client.Subscription, bool, time.Duration, error) {
	subs, more, err := p.pages.Next(ctx)
	offset, _ := p.c.ServiceClockOffset()
	return subs, more, offset, err
}

// unused reports whether sub was never used: ready, and never activated.
func unused(sub *client.Subscription) bool {
	return sub.State == client.StateReady && sub.ActivatedAt == nil
}

// listedOf is s as the journal's look reads it.
func listedOf(s client.Subscription) journal.Listed {
	l := journal.Listed{ID: s.ID, Created: time.Unix(s.CreatedAt, 0), Unused: unused(&s)}
	if s.PlanID != "" {
		l.Requests = append(l.Requests, RequestOf(client.CreateSubscriptionRequest{PlanID: s.PlanID}))
	}
	if inline, ok := inlinePlanOf(s.Plan); ok {
		l.Requests = append(l.Requests, RequestOf(client.CreateSubscriptionRequest{Plan: &inline}))
	}
	return l
}

// statusOf is what the service shows of a subscription, for a create of
// one of requests: the one classification the decision reads (nil: not
// asked).
func statusOf(sub *client.Subscription, requests ...string) journal.Status {
	switch {
	case sub == nil:
		return journal.Unchecked
	case !unused(sub):
		return journal.Used
	}
	served := listedOf(*sub).Requests
	for _, request := range requests {
		if request != "" && slices.Contains(served, request) {
			return journal.Fit
		}
	}
	return journal.OtherPlan
}

// inlinePlanOf is the inline plan a subscription's plan is the same
// product as: one with the three configurable numbers, one period and no
// label, as the service makes from an inline plan.
func inlinePlanOf(p client.PlanForAttachment) (client.InlinePlan, bool) {
	if p.CoverageProfileID == nil || p.DataMegaBytes == nil || p.PeriodDays == nil || (p.PeriodIterations != nil && *p.PeriodIterations != 1) || p.Label != nil {
		return client.InlinePlan{}, false
	}
	return client.InlinePlan{CoverageID: *p.CoverageProfileID, DataMBs: *p.DataMegaBytes, PeriodDays: *p.PeriodDays}, true
}
