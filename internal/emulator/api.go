package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// Page sizes (interface document, section 8.1).
const (
	defaultPageSize = 10
	maxPageSize     = 25
	maxRequestBody  = 64 << 10
	// Bounds that keep dataBytes and expireAt from overflowing int64.
	maxInlineDataMBs    = 1 << 40
	maxInlinePeriodDays = 100 * 366
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
	err = e.change(func(ch *change) error {
		sub, apiErr := e.store.create(ch, in)
		if apiErr != nil {
			return &controlError{http.StatusPreconditionFailed, apiErr}
		}
		out = sub.wire(e.store.clock())
		return nil
	})
	if err != nil {
		writeChangeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
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
	serveOne(w, "subscription", r.PathValue("id"), e.store.getSubscription)
}

func (e *Emulator) getPlan(w http.ResponseWriter, r *http.Request) {
	serveOne(w, "plan", r.PathValue("id"), e.store.getPlan)
}

func (e *Emulator) getEsim(w http.ResponseWriter, r *http.Request) {
	serveOne(w, "eSIM", r.PathValue("iccid"), e.store.getEsim)
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
	serveList(w, r, e.store.listSubscriptions)
}

func (e *Emulator) listPlans(w http.ResponseWriter, r *http.Request) {
	serveList(w, r, e.store.listPlans)
}

func (e *Emulator) listEsims(w http.ResponseWriter, r *http.Request) {
	serveList(w, r, e.store.listEsims)
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
	if errors.Is(err, errBadCursor) {
		writeError(w, http.StatusBadRequest, newError(codeInvalidRequest, err.Error(),
			ErrorDetail{Property: "page", Message: "unknown or malformed cursor", Suggestion: "pass the nextPage value of the previous response unchanged, or omit page for the first page"}))
		return
	}
	writeJSON(w, http.StatusOK, pg)
}
