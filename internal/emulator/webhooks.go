package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/webhook"
)

// WebhookOptions turns on delivery. The zero values of the tuning fields
// pick defaults suited to a person running the emulator.
type WebhookOptions struct {
	URL    string
	Secret string
	// QueueSize bounds the events waiting for delivery; when full, new events
	// are dropped and the drop is logged and counted.
	QueueSize   int
	MaxAttempts int
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	Timeout     time.Duration
}

// WebhookStats counts what happened to events so far. Attempts and Failed
// count delivery attempts; Queued, Delivered and Dropped count events, so
// every event ends up either delivered or dropped (once out of the queue).
type WebhookStats struct {
	// Queued: events accepted into the delivery queue.
	Queued int64 `json:"queued"`
	// Delivered: events a receiver acknowledged with a 2xx.
	Delivered int64 `json:"delivered"`
	// Attempts: POSTs made, successful or not.
	Attempts int64 `json:"attempts"`
	// Failed: attempts that got no 2xx (an error, a timeout, a 3xx, 4xx or 5xx).
	Failed int64 `json:"failed"`
	// Dropped: events never delivered, because the queue was full or
	// because every attempt failed.
	Dropped int64 `json:"dropped"`
}

// dispatcher delivers events in order from a bounded queue, in the
// background, retrying with exponential backoff and jitter until a 2xx
// answer or MaxAttempts: delivery is at least once and never blocks an API
// request.
type dispatcher struct {
	opts   WebhookOptions
	client *http.Client
	logger *log.Logger
	queue  chan []byte
	cancel context.CancelFunc
	ctx    context.Context
	wg     sync.WaitGroup

	queued, delivered, attempts, failed, dropped atomic.Int64
}

func newDispatcher(opts WebhookOptions, logger *log.Logger) *dispatcher {
	if opts.QueueSize <= 0 {
		opts.QueueSize = 1024
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 8
	}
	if opts.BaseBackoff <= 0 {
		opts.BaseBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &dispatcher{
		opts: opts,
		client: &http.Client{
			Timeout: opts.Timeout,
			// A redirect is not a delivery: the receiver did not take the
			// event, and following it would re-send it (or, for 301-303,
			// a body-less GET) to wherever the receiver points.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		logger: logger,
		queue:  make(chan []byte, opts.QueueSize),
		ctx:    ctx,
		cancel: cancel,
	}
	d.wg.Add(1)
	go d.run()
	return d
}

func (d *dispatcher) enqueue(events []any) {
	for _, ev := range events {
		body, err := json.Marshal(ev)
		if err != nil {
			d.logger.Printf("webhook: cannot encode %T: %v", ev, err)
			continue
		}
		select {
		case d.queue <- body:
			d.queued.Add(1)
		default:
			d.dropped.Add(1)
			d.logger.Printf("webhook: queue full (%d events waiting), dropping %s", cap(d.queue), eventType(body))
		}
	}
}

func (d *dispatcher) run() {
	defer d.wg.Done()
	for {
		select {
		case <-d.ctx.Done():
			return
		case body := <-d.queue:
			d.deliver(body)
		}
	}
}

func (d *dispatcher) deliver(body []byte) {
	backoff := d.opts.BaseBackoff
	for attempt := 1; attempt <= d.opts.MaxAttempts; attempt++ {
		d.attempts.Add(1)
		err := d.post(body)
		if err == nil {
			d.delivered.Add(1)
			return
		}
		d.failed.Add(1)
		d.logger.Printf("webhook: %s attempt %d/%d: %v", eventType(body), attempt, d.opts.MaxAttempts, err)
		if attempt == d.opts.MaxAttempts {
			break
		}
		wait := backoff/2 + rand.N(backoff/2+1) // jitter keeps retries of many emulators apart
		select {
		case <-d.ctx.Done():
			return
		case <-time.After(wait):
		}
		backoff = min(backoff*2, d.opts.MaxBackoff)
	}
	d.dropped.Add(1)
	d.logger.Printf("webhook: dropping %s after %d failed attempts", eventType(body), d.opts.MaxAttempts)
}

func (d *dispatcher) post(body []byte) error {
	req, err := http.NewRequestWithContext(d.ctx, http.MethodPost, d.opts.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhook.SignatureHeader, webhook.Sign(d.opts.Secret, body))
	resp, err := d.client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("receiver answered %s (only 2xx counts as delivered; redirects are not followed)", resp.Status)
	}
	return nil
}

func (d *dispatcher) stats() WebhookStats {
	return WebhookStats{
		Queued: d.queued.Load(), Delivered: d.delivered.Load(), Attempts: d.attempts.Load(),
		Failed: d.failed.Load(), Dropped: d.dropped.Load(),
	}
}

func (d *dispatcher) close() {
	d.cancel()
	d.wg.Wait()
}

func eventType(body []byte) string {
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(body, &head)
	return head.Type
}
