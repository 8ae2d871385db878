package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// A service, or a proxy in front of it, that repeats the request's
// Authorization header in its answer must not put the token into an error:
// error texts are shown to people and written to Terraform's logs.
func TestTokenEchoedByTheServiceIsHidden(t *testing.T) {
	t.Parallel()
	token := emulatortest.Token
	for name, answer := range map[string]func(w http.ResponseWriter, r *http.Request){
		"service error": func(w http.ResponseWriter, r *http.Request) {
			auth := r.Header.Get("Authorization")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"code":"invalidRequest %[1]s","message":"you sent %[1]s","docsUrl":"https://docs.example/%[1]s","hint":"%[1]s",`+
				`"details":[{"property":"%[1]s","code":"%[1]s","message":"%[1]s","suggestion":"%[1]s"}]}`, auth)
		},
		"proxy page": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "<html>upstream refused %s</html>", r.Header.Get("Authorization"))
		},
		"unreadable success": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "not json %s", r.Header.Get("Authorization"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(answer))
			t.Cleanup(srv.Close)
			c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.MaxRetries = new(int) })
			_, err := c.GetPlan(t.Context(), "plan_001")
			if err == nil {
				t.Fatal("no error")
			}
			var apiErr *APIError
			var decodeErr *DecodeError
			seen := err.Error()
			switch {
			case errors.As(err, &apiErr):
				seen += fmt.Sprintf("%#v", *apiErr)
			case errors.As(err, &decodeErr):
				seen += fmt.Sprintf("%#v", *decodeErr)
			default:
				t.Fatalf("unexpected error %T: %v", err, err)
			}
			if strings.Contains(seen, token) {
				t.Fatalf("the token shows in the error:\n%s", seen)
			}
			if !strings.Contains(seen, redactedSecret) {
				t.Fatalf("the error does not show where the token was:\n%s", seen)
			}
		})
	}
}
