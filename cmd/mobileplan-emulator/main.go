// Command mobileplan-emulator serves a local, stateful emulator of the
// mobile-plan subscription service for demos, tests and trying
// configurations without an account.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

func main() {
	if err := run(os.Args[1:]); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "mobileplan-emulator:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("mobileplan-emulator", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8089", "address to listen on (port 0 picks a free port)")
	token := fs.String("token", "", "bearer token clients must send (default $MOBILEPLAN_EMULATOR_TOKEN)")
	esims := fs.Int("esims", emulator.DefaultEsims, "number of eSIMs in the built-in data set")
	plans := fs.Int("plans", emulator.DefaultPlans, "number of plans in the built-in data set")
	data := fs.String("data", "", "JSON file with {\"plans\": [...], \"esims\": [...]} to start from instead of the built-in data set")
	state := fs.String("state", "", "database file that keeps all state across restarts: every change is stored before it is answered, and the file is locked while the emulator runs (a JSON state file of earlier versions is migrated)")
	webhookURL := fs.String("webhook-url", "", "URL that receives webhook events")
	webhookSecret := fs.String("webhook-secret", "", "signing secret for the service-signature header of webhook calls")
	rateLimit := fs.Float64("rate-limit", 0, "requests per second each token may send to /v1 (a token bucket holding q requests, the smallest whole number in whole seconds: 5 for 5, 3 for 0.3); the rest are answered 429 with Retry-After, counted as rateLimited in /_emulator/stats (0: no limit)")
	rateLimitWindow := fs.Duration("rate-limit-window", 0, "with -rate-limit, make the quota a fixed window of this length (whole seconds): rate × window requests per window, the count starting afresh when it ends, as many APIs count (default: a token bucket)")
	quotaFields := fs.String("quota-fields", "", "with -rate-limit, describe each token's quota on every answer, 429s included: \"ietf\" sends RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers), \"x-ratelimit\" sends X-RateLimit-Limit, -Remaining and -Reset (default: none, as the service's contract assumes)")
	sequentialIDs := fs.Bool("sequential-ids", false, "issue subscription ids that count up (sub_0000000000000001, …) instead of random ones, so that two emulators issue the same ids, as a staging and a production deployment of a real service may")
	quiet := fs.Bool("quiet", false, "log only errors, not one line per request")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage of mobileplan-emulator:\n")
		fs.PrintDefaults()
		fmt.Fprintf(fs.Output(), "\nServer timeouts: request headers %v, whole request %v, answer %v, idle keep-alive connection %v.\n"+
			"Control operations under /_emulator/ answer only on loopback, to a loopback Host and Origin, and take Content-Type: application/json.\n",
			emulator.ReadHeaderTimeout, emulator.ReadTimeout, emulator.WriteTimeout, emulator.IdleTimeout)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil // -h asked for the usage text, which was printed
		}
		return err
	}
	if *token == "" {
		*token = os.Getenv("MOBILEPLAN_EMULATOR_TOKEN")
	}
	if *token == "" {
		return errors.New("a token is required: pass -token TOKEN or set MOBILEPLAN_EMULATOR_TOKEN")
	}
	if (*webhookURL == "") != (*webhookSecret == "") {
		return errors.New("-webhook-url and -webhook-secret go together")
	}
	fields, err := emulator.ParseQuotaFields(*quotaFields)
	if err != nil {
		return err
	}
	if *rateLimitWindow != 0 && *rateLimit <= 0 {
		return errors.New("-rate-limit-window shapes the quota of -rate-limit: set both")
	}
	if fields != emulator.QuotaFieldsNone && *rateLimit <= 0 {
		return errors.New("-quota-fields describes the quota of -rate-limit: set both")
	}

	logger := log.New(os.Stderr, "mobileplan-emulator: ", log.LstdFlags)
	opts := emulator.Options{
		Token:           *token,
		StatePath:       *state,
		Logger:          logger,
		Webhook:         emulator.WebhookOptions{URL: *webhookURL, Secret: *webhookSecret},
		RateLimit:       *rateLimit,
		RateLimitWindow: *rateLimitWindow,
		QuotaFields:     fields,
		SequentialIDs:   *sequentialIDs,
	}
	if *quiet {
		opts.Logger = nil
	}
	switch {
	case *data != "":
		ds, err := emulator.LoadDataset(*data)
		if err != nil {
			return err
		}
		opts.Dataset = &ds
	case *plans < 1 || *esims < 0:
		return errors.New("-plans must be at least 1 and -esims at least 0")
	default:
		ds := emulator.DefaultDataset(*plans, *esims)
		opts.Dataset = &ds
	}

	emu, err := emulator.New(opts)
	if err != nil {
		return err
	}
	defer emu.Close()

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		logger.Printf("warning: listening on %s, beyond loopback; control operations still answer only on loopback", tcp)
	}
	var handler http.Handler = emu
	if !*quiet {
		handler = emulator.LogRequests(emu, logger)
	}
	srv := emulator.NewServer(handler)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()

	fmt.Printf("MOBILEPLAN_BASE_URL=http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
