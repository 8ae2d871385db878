package emulator_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

// Timeouts of the servers these tests start: short, so that a test of a
// timeout waits for about a second, not for the defaults.
var testServerOptions = emulator.ServerOptions{ReadTimeout: time.Second, IdleTimeout: 500 * time.Millisecond}

// startServer serves an emulator with the command's server (same
// constructor, timeouts testServerOptions) on a loopback port.
func startServer(t *testing.T) string {
	t.Helper()
	emu, err := emulator.New(emulator.Options{Token: "tok", Dataset: smallDataset(3, 0)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := testServerOptions.NewServer(emu)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close(); emu.Close() })
	return ln.Addr().String()
}

// dialServer connects to a new startServer and writes the raw request start
// to it; the connection is closed when the test ends.
func dialServer(t *testing.T, start string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", startServer(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := io.WriteString(conn, start); err != nil {
		t.Fatal(err)
	}
	return conn
}

// closedWithin reads from conn until the server closes it, and fails the
// test unless that happens within limit.
func closedWithin(t *testing.T, conn net.Conn, limit time.Duration) {
	t.Helper()
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(limit))
	_, err := io.Copy(io.Discard, conn) // returns at EOF or reset
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("connection still open after %v", limit)
	}
	t.Logf("closed by the server after %v", time.Since(start).Round(100*time.Millisecond))
}

// A client that trickles its request body is cut off after the read
// timeout.
func TestServerClosesBodyTrickler(t *testing.T) {
	t.Parallel()
	conn := dialServer(t, "POST /v1/subscriptions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	stop := make(chan struct{})
	defer close(stop)
	go func() { // one byte every 200 ms: never finishes within the timeout
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := io.WriteString(conn, " "); err != nil {
					return
				}
			}
		}
	}()
	closedWithin(t, conn, testServerOptions.ReadTimeout+3*time.Second)
}

// An idle keep-alive connection is closed after the idle timeout.
func TestServerClosesIdleConnection(t *testing.T) {
	t.Parallel()
	conn := dialServer(t, "GET /v1/plans HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer tok\r\n\r\n")
	rd := bufio.NewReader(conn)
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("first request: %d, close %v", resp.StatusCode, resp.Close)
	}
	closedWithin(t, conn, testServerOptions.IdleTimeout+3*time.Second)
}

// The command's server has the documented timeouts; options override
// each, and leave the others at theirs.
func TestServerTimeoutsDocumented(t *testing.T) {
	t.Parallel()
	srv := emulator.NewServer(http.NotFoundHandler())
	guide, err := os.ReadFile("../../docs/guides/emulator.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": srv.ReadHeaderTimeout, "ReadTimeout": srv.ReadTimeout,
		"WriteTimeout": srv.WriteTimeout, "IdleTimeout": srv.IdleTimeout,
	} {
		if d <= 0 {
			t.Errorf("%s is not set", name)
		}
		if !strings.Contains(string(guide), d.String()) {
			t.Errorf("the emulator guide does not give %s (%v)", name, d)
		}
	}
	short := testServerOptions.NewServer(http.NotFoundHandler())
	if short.ReadTimeout != testServerOptions.ReadTimeout || short.IdleTimeout != testServerOptions.IdleTimeout ||
		short.ReadHeaderTimeout != srv.ReadHeaderTimeout || short.WriteTimeout != srv.WriteTimeout {
		t.Errorf("ServerOptions %+v gave timeouts header %v, read %v, write %v, idle %v", testServerOptions,
			short.ReadHeaderTimeout, short.ReadTimeout, short.WriteTimeout, short.IdleTimeout)
	}
}
