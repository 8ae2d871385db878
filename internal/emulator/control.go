package emulator

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// Control operations under /_emulator/: what the real service does on its
// own (first use, data usage, roaming, SM-DP+ changes, time passing), plus
// reset, inventory growth, fault injection and counters. They need no token
// and answer only on loopback, since anyone who reaches them can rewrite the
// service's state, and refuse what a browser could send cross-site
// (crosssite.go).

func (e *Emulator) controlRoutes(mux *http.ServeMux) {
	ctl := func(pattern string, h func(r *http.Request) (any, error)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if !isLoopback(r) {
				writeError(w, http.StatusForbidden, newError(codeForbidden, "control operations answer only on loopback"))
				return
			}
			if status, reason := crossSiteRefusal(r); status != 0 {
				code := codeForbidden
				if status == http.StatusUnsupportedMediaType {
					code = codeInvalidRequest
				}
				writeError(w, status, newError(code, reason))
				return
			}
			out, err := h(r)
			switch {
			case err != nil:
				writeChangeError(w, err)
			case out == nil:
				w.WriteHeader(http.StatusNoContent)
			default:
				writeJSON(w, http.StatusOK, out)
			}
		})
	}
	ctl("POST /_emulator/subscriptions/{id}/activate", func(r *http.Request) (any, error) {
		return e.subscriptionAfter(r.PathValue("id"), e.Activate(r.PathValue("id")))
	})
	ctl("POST /_emulator/subscriptions/{id}/usage", func(r *http.Request) (any, error) {
		var body struct {
			DataBytes int64 `json:"dataBytes"`
		}
		if err := decodeControl(r, &body); err != nil {
			return nil, err
		}
		return e.subscriptionAfter(r.PathValue("id"), e.RecordUsage(r.PathValue("id"), body.DataBytes))
	})
	ctl("POST /_emulator/esims/{iccid}/location", func(r *http.Request) (any, error) {
		var body struct {
			CountryISO2 string `json:"countryIso2"`
		}
		if err := decodeControl(r, &body); err != nil {
			return nil, err
		}
		return e.esimAfter(r.PathValue("iccid"), e.MoveEsim(r.PathValue("iccid"), body.CountryISO2))
	})
	ctl("POST /_emulator/esims/{iccid}/smdp-state", func(r *http.Request) (any, error) {
		var body struct {
			State string `json:"state"`
		}
		if err := decodeControl(r, &body); err != nil {
			return nil, err
		}
		return e.esimAfter(r.PathValue("iccid"), e.SetSmdpState(r.PathValue("iccid"), body.State))
	})
	ctl("POST /_emulator/esims", func(r *http.Request) (any, error) {
		var body struct {
			Count int     `json:"count"`
			Label *string `json:"label"`
		}
		if err := decodeControl(r, &body); err != nil {
			return nil, err
		}
		added, err := e.AddEsims(body.Count, body.Label)
		return map[string]any{"added": added}, err
	})
	ctl("GET /_emulator/clock", func(*http.Request) (any, error) {
		return map[string]int64{"now": e.Now()}, nil
	})
	ctl("POST /_emulator/clock/advance", func(r *http.Request) (any, error) {
		var body struct {
			Seconds int64 `json:"seconds"`
		}
		if err := decodeControl(r, &body); err != nil {
			return nil, err
		}
		now, err := e.AdvanceClock(body.Seconds)
		return map[string]int64{"now": now}, err
	})
	ctl("POST /_emulator/reset", func(*http.Request) (any, error) {
		return nil, e.reset()
	})
	ctl("GET /_emulator/faults", func(*http.Request) (any, error) { return e.faults.get(), nil })
	ctl("PUT /_emulator/faults", func(r *http.Request) (any, error) {
		var f Faults
		if err := decodeControl(r, &f); err != nil {
			return nil, err
		}
		if err := f.Validate(); err != nil {
			return nil, badRequest(err.Error())
		}
		e.SetFaults(f)
		return e.faults.get(), nil
	})
	ctl("DELETE /_emulator/faults", func(*http.Request) (any, error) {
		e.SetFaults(Faults{})
		return nil, nil
	})
	ctl("GET /_emulator/stats", func(*http.Request) (any, error) { return e.Stats(), nil })
	ctl("/_emulator/", func(r *http.Request) (any, error) {
		return nil, notFound("control operation", r.Method+" "+r.URL.Path)
	})
}

func decodeControl(r *http.Request, dst any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxRequestBody))
	dec.DisallowUnknownFields() // a typo in a control call should not pass silently
	if err := dec.Decode(dst); err != nil {
		return badRequest("request body: " + err.Error())
	}
	return nil
}

func (e *Emulator) subscriptionAfter(id string, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	sub, _ := e.subscription(id)
	return sub, nil
}

func (e *Emulator) esimAfter(iccid string, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	es, _ := e.esim(iccid)
	return es, nil
}

// Activate marks a subscription's eSIM as first used: it becomes active,
// with activatedAt and expireAt set, and the activation events fire.
func (e *Emulator) Activate(id string) error {
	return e.commitThenNotify(func(tx *state.Tx, announce *[]any) error { return activate(tx, announce, id) })
}

// RecordUsage consumes dataBytes of a subscription's data allowance.
func (e *Emulator) RecordUsage(id string, dataBytes int64) error {
	return e.commitThenNotify(func(tx *state.Tx, announce *[]any) error { return recordUsage(tx, announce, id, dataBytes) })
}

// MoveEsim records that an eSIM is now in another country.
func (e *Emulator) MoveEsim(iccid, countryISO2 string) error {
	return e.commitThenNotify(func(tx *state.Tx, announce *[]any) error { return moveEsim(tx, announce, iccid, countryISO2) })
}

// SetSmdpState changes an eSIM's SM-DP+ state.
func (e *Emulator) SetSmdpState(iccid, smdpState string) error {
	return e.commitThenNotify(func(tx *state.Tx, announce *[]any) error { return setSmdpState(tx, announce, iccid, smdpState) })
}

// AddEsims grows the inventory by count eSIMs with the given label.
func (e *Emulator) AddEsims(count int, label *string) (int, error) {
	if count < 1 || count > 100_000 {
		return 0, badRequest("count must be from 1 to 100000")
	}
	err := e.commitThenNotify(func(tx *state.Tx, _ *[]any) error {
		tx.AddEsims(count, label)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return count, nil
}

// AdvanceClock moves the emulator's clock forward by seconds and returns the
// new time (Unix seconds). The clock runs at most state.MaxClockOffsetSeconds
// ahead of the wall clock.
func (e *Emulator) AdvanceClock(seconds int64) (int64, error) {
	var now int64
	err := e.commitThenNotify(func(tx *state.Tx, _ *[]any) error {
		var err error
		now, err = advanceClock(tx, seconds)
		return err
	})
	return now, err
}

// Now is the emulator's clock, in Unix seconds.
func (e *Emulator) Now() int64 {
	var now int64
	e.state.View(func(r *state.ReadTx) { now = r.Now() })
	return now
}

// reset returns to the starting data set: no subscriptions, every eSIM
// free, clock back to the wall clock. Cursors issued before are no longer
// valid.
func (e *Emulator) reset() error {
	return e.commitThenNotify(func(tx *state.Tx, _ *[]any) error {
		tx.Reset(e.dataset)
		return nil
	})
}

// Stats is what GET /_emulator/stats answers.
type Stats struct {
	Requests      map[string]int `json:"requests"`
	Subscriptions int            `json:"subscriptions"`
	FreeEsims     int            `json:"freeEsims"`
	// RateLimited is how many of the requests were answered 429 by the
	// rate limit (Options.RateLimit); they are counted in Requests too.
	RateLimited int           `json:"rateLimited"`
	Webhooks    *WebhookStats `json:"webhooks,omitempty"`
}

// Stats counts requests per route, subscriptions, free eSIMs, requests
// the rate limit refused and webhook deliveries.
func (e *Emulator) Stats() Stats {
	st := Stats{Requests: e.RequestCounts(), RateLimited: e.quota.limitedCount()}
	e.state.View(func(r *state.ReadTx) { st.Subscriptions, st.FreeEsims = r.Counts() })
	if e.hooks != nil {
		ws := e.hooks.stats()
		st.Webhooks = &ws
	}
	return st
}
