package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// Readers of one SharedPages list are each given the whole list in the
// service's order, a reader that stops early included, and the service is
// asked for each page once: two readers, then eight at once (run with
// -race too).
func TestSharedPages_eachPageIsFetchedOnce(t *testing.T) {
	t.Parallel()
	ds := dataset(30, 130) // 6 pages
	emu, c := startWithClient(t, ds)
	var want []string
	for _, e := range ds.Esims {
		want = append(want, e.ICCID)
	}
	shared := c.SharedEsimPages()
	// The preflight's way: a page at a time, as far as it needs.
	first := shared.Reader()
	items, more, err := first.Next(bg)
	if err != nil || !more || len(items) != MaxPageSize {
		t.Fatalf("the first page: %d items, more %v, %v", len(items), more, err)
	}
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for i := range got {
		wg.Go(func() {
			for e, err := range shared.All(bg) {
				if err != nil {
					t.Errorf("reader %d: %v", i, err)
					return
				}
				got[i] = append(got[i], e.ICCID)
			}
		})
	}
	wg.Wait()
	for i, ids := range got {
		if !slices.Equal(ids, want) {
			t.Errorf("reader %d read %d eSIMs, want the list's %d in its order", i, len(ids), len(want))
		}
	}
	if n := emu.RequestCounts()["GET /v1/esims"]; n != 6 {
		t.Errorf("GET /v1/esims requests = %d, want the list's 6 pages, each once", n)
	}
}

// twoPages serves a list of two pages whose second answers fail (a 400
// the client does not retry), counting the requests for it.
func twoPages(t *testing.T, fail bool) (*Client, *atomic.Int32) {
	t.Helper()
	var second atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("page") == "" {
			_, _ = w.Write([]byte(`{"items":[{"iccid":"8900000000000000001","smdpState":"AVAILABLE"}],"nextPage":"p2"}`))
			return
		}
		second.Add(1)
		if fail {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"code":"badRequest","message":"no such page"}`))
			return
		}
		_, _ = w.Write([]byte(`{"items":[{"iccid":"8900000000000000002","smdpState":"AVAILABLE"}],"nextPage":null}`))
	}))
	t.Cleanup(srv.Close)
	return newTestClient(t, srv.URL, nil), &second
}

// The service's error ends the list for every reader, at its page, and
// is not asked again; a reader whose own context ended leaves the page to
// the next reader, which reads the list to its end.
func TestSharedPages_errors(t *testing.T) {
	t.Parallel()
	t.Run("the service's", func(t *testing.T) {
		t.Parallel()
		c, second := twoPages(t, true)
		shared := c.SharedEsimPages()
		for reader := range 2 {
			var read int
			var err error
			for _, err = range shared.All(bg) {
				if err != nil {
					break
				}
				read++
			}
			var pageErr *PageError
			if read != 1 || !errors.As(err, &pageErr) || pageErr.Page != 2 {
				t.Errorf("reader %d: %d read, then %v; want the first page's 1, then the second page's error", reader, read, err)
			}
		}
		if n := second.Load(); n != 1 {
			t.Errorf("the failing page was asked %d times, want once", n)
		}
	})
	t.Run("a reader's own context", func(t *testing.T) {
		t.Parallel()
		c, second := twoPages(t, false)
		shared := c.SharedEsimPages()
		ctx, cancel := context.WithCancel(bg)
		gone := shared.Reader()
		if _, more, err := gone.Next(ctx); err != nil || !more {
			t.Fatalf("the first page: more %v, %v", more, err)
		}
		cancel()
		if _, _, err := gone.Next(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled reader's second page: %v, want its context's error", err)
		}
		if items, more, err := gone.Next(bg); items != nil || more || err != nil {
			t.Errorf("a reader that ended reads on: %v, %v, %v", items, more, err)
		}
		var read []string
		for e, err := range shared.All(bg) {
			if err != nil {
				t.Fatalf("the next reader: %v", err)
			}
			read = append(read, e.ICCID)
		}
		if !slices.Equal(read, []string{"8900000000000000001", "8900000000000000002"}) || second.Load() != 1 {
			t.Errorf("the next reader read %v, with %d answers of the second page; want both eSIMs, the second page answered once", read, second.Load())
		}
	})
}
