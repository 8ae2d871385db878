package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// Page sizes (interface document, section 8.1).
const (
	defaultPageSize = 10
	maxPageSize     = 25
	maxRequestBody  = 64 << 10
	// Bounds that keep dataBytes and expireAt from overflowing int64.
	maxInlineDataMBs    = state.MaxDataMegaBytes
	maxInlinePeriodDays = state.MaxPeriodDays
)

func (e *Emulator) createSubscription(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, newError(codeInvalidRequest, "could not read the request body"))
		return
	}
	if len(raw) > maxRequestBody {
		writeError(w, http.StatusBadRequest, newError(codeInvalidRequest, fmt.Sprintf("the request body is larger than %d bytes", maxRequestBody)))
		return
	}
	in, apiErr := decodeCreateRequest(raw)
	if apiErr != nil {
		writeError(w, http.StatusBadRequest, apiErr)
		return
	}
	var out Subscription
	err = e.commitThenNotify(func(tx *state.Tx, _ *[]any) error {
		sub, apiErr := createSubscription(tx, in)
		if apiErr != nil {
			return &controlError{http.StatusPreconditionFailed, apiErr}
		}
		out = wire(&sub, tx.Now())
		return nil
	})
	if err != nil {
		writeChangeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// createInput is a create request after validation: exactly one of PlanID
// and Inline is set.
type createInput struct {
	PlanID string
	Inline *inlinePlan
}

type inlinePlan struct {
	CoverageID string
	DataMBs    int64
	PeriodDays int64
}

// createSubscription assigns an eSIM and records the subscription. The
// *ErrorBody is the 412 the service answers when the plan or the inventory
// does not allow it.
func createSubscription(tx *state.Tx, in createInput) (state.Subscription, *ErrorBody) {
	now := tx.Now()
	var plan state.Plan
	if in.Inline != nil {
		plan = state.Plan{
			Name:              fmt.Sprintf("custom %d MB / %d days", in.Inline.DataMBs, in.Inline.PeriodDays),
			DataMegaBytes:     in.Inline.DataMBs,
			PeriodDays:        in.Inline.PeriodDays,
			PeriodIterations:  1,
			CoverageProfileID: ptr(in.Inline.CoverageID),
			CreatedAt:         now,
		}
	} else {
		p, ok := tx.Plan(in.PlanID)
		switch {
		case !ok:
			return state.Subscription{}, newError(codeInvalidPlan, fmt.Sprintf("plan %q does not exist", in.PlanID), ErrorDetail{Property: "planId", Message: "no plan has this id", Suggestion: "list the account's plans (GET /v1/plans) and use the id of one that is neither archived nor an addon"})
		case p.Archived:
			return state.Subscription{}, newError(codeInvalidPlan, fmt.Sprintf("plan %q is archived and cannot be subscribed to", in.PlanID), ErrorDetail{Property: "planId", Message: "the plan is archived", Suggestion: "choose a plan that is not archived"})
		case p.Addon:
			return state.Subscription{}, newError(codeInvalidPlan, fmt.Sprintf("plan %q is an addon plan and cannot be subscribed to", in.PlanID), ErrorDetail{Property: "planId", Message: "the plan is an addon", Suggestion: "choose a base plan; addons attach to an existing subscription"})
		}
		plan = p
	}
	if in.Inline != nil {
		// Added before the eSIM is looked for: a create refused for want of
		// one is undone whole, the plan with it.
		plan = tx.AddCustomPlan(plan)
	}
	sub, ok := tx.Subscribe(plan, now)
	if !ok {
		want := "any label"
		if plan.Label != nil {
			want = fmt.Sprintf("label %q", *plan.Label)
		}
		return state.Subscription{}, newError(codeOutOfInventory, fmt.Sprintf("no unassigned eSIM with %s is left in the account", want), ErrorDetail{Message: "the account's eSIM inventory is exhausted for this plan", Suggestion: "add eSIMs to the account's inventory, or choose a plan with another label"})
	}
	return sub, nil
}

// decodeCreateRequest checks the body of a create: a JSON object with
// exactly one of planId (a non-empty string) and plan (an object with
// coverageId string, dataMBs and periodDays positive integers). Unknown
// fields are ignored, as the real service is expected to do; null counts as
// absent.
func decodeCreateRequest(raw []byte) (createInput, *ErrorBody) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return createInput{}, newError(codeInvalidRequest, "the request body must be a JSON object")
	}
	present := func(name string) bool {
		v, ok := fields[name]
		return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
	}
	hasID, hasPlan := present("planId"), present("plan")
	switch {
	case hasID && hasPlan:
		return createInput{}, newError(codeInvalidRequest, "give exactly one of planId and plan, not both",
			ErrorDetail{Property: "plan", Message: "planId and plan are mutually exclusive", Suggestion: "remove plan to subscribe to an existing plan, or planId to describe a plan inline"})
	case !hasID && !hasPlan:
		return createInput{}, newError(codeInvalidRequest, "give exactly one of planId and plan",
			ErrorDetail{Property: "planId", Message: "neither planId nor plan was given", Suggestion: "set planId to the id of a plan, or plan to an inline plan"})
	case hasID:
		var id string
		if err := json.Unmarshal(fields["planId"], &id); err != nil {
			return createInput{}, fieldError("planId", "must be a string")
		}
		if id == "" {
			return createInput{}, fieldError("planId", "must not be empty")
		}
		return createInput{PlanID: id}, nil
	}
	var plan map[string]json.RawMessage
	if err := json.Unmarshal(fields["plan"], &plan); err != nil {
		return createInput{}, fieldError("plan", "must be an object with coverageId, dataMBs and periodDays")
	}
	var in inlinePlan
	if err := decodeField(plan, "coverageId", &in.CoverageID); err != nil {
		return createInput{}, err
	}
	if in.CoverageID == "" {
		return createInput{}, fieldError("plan.coverageId", "must not be empty")
	}
	for _, f := range []struct {
		name string
		dst  *int64
		max  int64
	}{{"dataMBs", &in.DataMBs, maxInlineDataMBs}, {"periodDays", &in.PeriodDays, maxInlinePeriodDays}} {
		if err := decodeField(plan, f.name, f.dst); err != nil {
			return createInput{}, err
		}
		if *f.dst <= 0 {
			return createInput{}, fieldError("plan."+f.name, "must be a positive integer")
		}
		if *f.dst > f.max {
			return createInput{}, fieldError("plan."+f.name, fmt.Sprintf("must be at most %d", f.max))
		}
	}
	return createInput{Inline: &in}, nil
}

func decodeField[T any](obj map[string]json.RawMessage, name string, dst *T) *ErrorBody {
	v, ok := obj[name]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return fieldError("plan."+name, "is required")
	}
	if err := json.Unmarshal(v, dst); err != nil {
		kind := "a string"
		if _, isInt := any(dst).(*int64); isInt {
			kind = "an integer"
		}
		return fieldError("plan."+name, "must be "+kind)
	}
	return nil
}

func fieldError(property, problem string) *ErrorBody {
	return newError(codeInvalidRequest, property+" "+problem, ErrorDetail{Property: property, Message: property + " " + problem})
}

func (e *Emulator) getSubscription(w http.ResponseWriter, r *http.Request) {
	serveOne(w, "subscription", r.PathValue("id"), e.subscription)
}

func (e *Emulator) getPlan(w http.ResponseWriter, r *http.Request) {
	serveOne(w, "plan", r.PathValue("id"), e.plan)
}

func (e *Emulator) getEsim(w http.ResponseWriter, r *http.Request) {
	serveOne(w, "eSIM", r.PathValue("iccid"), e.esim)
}

// subscription, plan and esim read one record by its key.
func (e *Emulator) subscription(id string) (out Subscription, ok bool) {
	e.state.View(func(r *state.ReadTx) {
		var sub state.Subscription
		if sub, ok = r.Subscription(id); ok {
			out = wire(&sub, r.Now())
		}
	})
	return out, ok
}

func (e *Emulator) plan(id string) (out state.Plan, ok bool) {
	e.state.View(func(r *state.ReadTx) { out, ok = r.Plan(id) })
	return out, ok
}

func (e *Emulator) esim(iccid string) (out state.Esim, ok bool) {
	e.state.View(func(r *state.ReadTx) { out, ok = r.Esim(iccid) })
	return out, ok
}

// serveOne answers the GET of one record by its key: the record, or a 404
// naming what does not exist.
func serveOne[T any](w http.ResponseWriter, what, key string, get func(string) (T, bool)) {
	v, ok := get(key)
	if !ok {
		writeError(w, http.StatusNotFound, newError(codeNotFound, fmt.Sprintf("%s %q does not exist", what, key)))
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (e *Emulator) listSubscriptions(w http.ResponseWriter, r *http.Request) {
	serveList(w, r, func(cursor string, size int) (pg page[Subscription], err error) {
		e.state.View(func(r *state.ReadTx) {
			var subs []state.Subscription
			if subs, pg.NextPage, err = r.ListSubscriptions(cursor, size); err != nil {
				return
			}
			now := r.Now()
			pg.Items = make([]Subscription, len(subs))
			for i := range subs {
				pg.Items[i] = wire(&subs[i], now)
			}
		})
		return pg, err
	})
}

func (e *Emulator) listPlans(w http.ResponseWriter, r *http.Request) {
	serveList(w, r, func(cursor string, size int) (pg page[state.Plan], err error) {
		e.state.View(func(r *state.ReadTx) { pg.Items, pg.NextPage, err = r.ListPlans(cursor, size) })
		return pg, err
	})
}

func (e *Emulator) listEsims(w http.ResponseWriter, r *http.Request) {
	serveList(w, r, func(cursor string, size int) (pg page[state.Esim], err error) {
		e.state.View(func(r *state.ReadTx) { pg.Items, pg.NextPage, err = r.ListEsims(cursor, size) })
		return pg, err
	})
}

func serveList[T any](w http.ResponseWriter, r *http.Request, list func(cursor string, size int) (page[T], error)) {
	q := r.URL.Query()
	size := defaultPageSize
	if v := q.Get("pageSize"); v != "" || q.Has("pageSize") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPageSize {
			writeError(w, http.StatusBadRequest, newError(codeInvalidRequest, fmt.Sprintf("pageSize must be an integer from 1 to %d, got %q", maxPageSize, v),
				ErrorDetail{Property: "pageSize", Message: "out of range", Suggestion: fmt.Sprintf("use a pageSize from 1 to %d", maxPageSize)}))
			return
		}
		size = n
	}
	pg, err := list(q.Get("page"), size)
	if errors.Is(err, state.ErrBadCursor) {
		writeError(w, http.StatusBadRequest, newError(codeInvalidRequest, err.Error(),
			ErrorDetail{Property: "page", Message: "unknown or malformed cursor", Suggestion: "pass the nextPage value of the previous response unchanged, or omit page for the first page"}))
		return
	}
	writeJSON(w, http.StatusOK, pg)
}
