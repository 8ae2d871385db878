// Package diagnostics turns service errors into Terraform diagnostics. Every
// diagnostic the provider shows for a failed API call is written here, so
// they all name the operation, the HTTP status and what the service said
// (code, message, docsUrl, suggestions), and end with a next step.
package diagnostics

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// TokenHelp says how to set the API token; shared by configuration errors and 401s.
const TokenHelp = "Set api_token in the provider block, or the MOBILEPLAN_API_TOKEN environment variable, to a valid access token of the account."

// BaseURLHelp says how to set the base URL.
const BaseURLHelp = "Set base_url in the provider block, or the MOBILEPLAN_BASE_URL environment variable, to the service's address (https://...), or to the emulator's http://127.0.0.1:PORT."

// APIError builds the diagnostic for a failed call. summary names the
// operation and object, e.g. "Could not create subscription". When attr is
// not empty the error is attached to that attribute.
func APIError(summary string, err error, attr path.Path) diag.Diagnostic {
	detail := Detail(err)
	if attr.Equal(path.Empty()) {
		return diag.NewErrorDiagnostic(summary, detail)
	}
	return diag.NewAttributeErrorDiagnostic(attr, summary, detail)
}

// Detail is the body of an API error diagnostic: what the service said,
// then what to do about it.
func Detail(err error) string {
	var pageErr *client.PageError
	var uncertain *client.UncertainCreateError
	var apiErr *client.APIError
	var reqErr *client.RequestError
	var noPath *client.NoSuchPathError
	var waitErr *client.RateLimitWaitError
	switch {
	case errors.As(err, &waitErr):
		return notSent(err) + " It waited for the account's request quota until its deadline: " + waitErr.Error() + "." + ceilingNamed(waitErr) + rateLimitAdvice
	case errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &uncertain) && (!errors.As(err, &reqErr) || reqErr.Timeout == 0):
		return notSent(err) + " The operation's time limit (for a create, timeouts.create) ran out first." + rateLimitAdvice
	case (errors.Is(err, client.ErrStopped) || errors.Is(err, context.Canceled)) && errors.As(err, &reqErr) && !reqErr.NotSent && !errors.As(err, &uncertain):
		return fmt.Sprintf("Terraform asked the provider to stop (an interrupt) while %s waited for its answer: the read was abandoned, which changes nothing at the service.", reqErr.Call)
	case (errors.Is(err, client.ErrStopped) || errors.Is(err, context.Canceled)) && !errors.As(err, &uncertain):
		detail := notSent(err) + " Terraform asked the provider to stop (an interrupt) first."
		if !errors.As(err, &reqErr) || reqErr.Method == http.MethodPost {
			detail += " Creates already sent were seen through and recorded in state; applying again does the rest."
		}
		return detail
	case errors.As(err, &noPath):
		return fmt.Sprintf("The service at %s has no such path (HTTP 404) to %s: check base_url. It must be the service's root, "+
			"such as https://api.example.com, without /v1: every path the provider requests begins with /v1. Nothing is missing at the service.", noPath.URL, noPath.Operation)
	case errors.As(err, &pageErr):
		return fmt.Sprintf("Listing stopped at page %d, after %d items had been read.\n", pageErr.Page, pageErr.ItemsRead) + Detail(pageErr.Err)
	case errors.As(err, &uncertain):
		what := facts(uncertain.Err)
		if errors.As(uncertain.Err, &apiErr) {
			what = Detail(uncertain.Err)
		}
		return what + "\n\n" + uncertainAdvice
	case errors.As(err, &apiErr):
		return answered(apiErr)
	case errors.As(err, &reqErr) && untrustedCertificate(err):
		return facts(reqErr) + "\n\n" + UntrustedCertificateHelp
	case errors.As(err, &reqErr):
		return facts(reqErr) + "\n\nCheck base_url and that the service (or the emulator) is reachable from here."
	}
	return facts(err)
}

// notSent opens the detail of a request this side gave up before sending
// it: the service did nothing.
func notSent(err error) string {
	var reqErr *client.RequestError
	if errors.As(err, &reqErr) {
		return fmt.Sprintf("Not sent: %s was never sent, so the service did nothing.", reqErr.Call)
	}
	return "Not sent: the request was never sent, so the service did nothing."
}

// ceilingNamed names the provider setting behind the client's ceiling.
func ceilingNamed(e *client.RateLimitWaitError) string {
	if e.Ceiling && (e.Queued > 0 || e.Ahead > 0) {
		return " The ceiling is this provider's max_requests_per_second."
	}
	return ""
}

// UntrustedCertificateHelp follows a TLS certificate no trusted authority
// signed.
const UntrustedCertificateHelp = "The service's TLS certificate is signed by an authority this machine does not trust. " +
	"If a proxy intercepts TLS, or the service has a private certificate authority, give that authority's PEM certificate in ca_cert_pem " +
	"or the MOBILEPLAN_CA_CERT_PEM environment variable; it is trusted in addition to the system's authorities."

func untrustedCertificate(err error) bool {
	var unknown x509.UnknownAuthorityError
	return errors.As(err, &unknown)
}

// answered tells what the service answered, then the next step.
func answered(e *client.APIError) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The service answered HTTP %s to %s %s", e.Status, e.Method, e.Path)
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	b.WriteString(".\n")
	if e.Code != "" {
		fmt.Fprintf(&b, "Code: %s\n", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, "Message: %s\n", e.Message)
	}
	if e.Code == "" && e.Message == "" {
		if e.BodyExcerpt == "" {
			b.WriteString("The answer had an empty body, as a proxy or gateway in front of the service sends.\n")
		} else {
			fmt.Fprintf(&b, "The answer was not a service error; it began: %s\n", e.BodyExcerpt)
		}
	}
	for _, d := range e.Details {
		if line := d.String(); line != "" {
			fmt.Fprintf(&b, "Detail: %s\n", line)
		}
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "Hint: %s\n", e.Hint)
	}
	if e.DocsURL != "" {
		fmt.Fprintf(&b, "Docs: %s\n", e.DocsURL)
	}
	if next := nextStep(e); next != "" {
		fmt.Fprintf(&b, "\n%s", next)
	}
	return strings.TrimRight(b.String(), "\n")
}

// facts is an error's own text, with the provider setting or the provider's
// rule that it concerns named.
func facts(err error) string {
	var reqErr *client.RequestError
	var redirect *client.RedirectError
	var endless *client.EndlessListError
	switch {
	case errors.As(err, &reqErr):
		s := reqErr.String() + ": no answer from the service"
		switch {
		case reqErr.Timeout > 0 && reqErr.Attempts > 1:
			s += fmt.Sprintf(": each of %d attempts timed out after %s (request_timeout)", reqErr.Attempts, reqErr.Timeout)
		case reqErr.Timeout > 0:
			s += fmt.Sprintf(": timed out after %s (request_timeout)", reqErr.Timeout)
		case reqErr.Attempts > 1:
			s += fmt.Sprintf(" after %d attempts", reqErr.Attempts)
		}
		return s + ": " + reqErr.Err.Error()
	case errors.As(err, &redirect):
		return redirect.Error() + ". The provider follows redirects only within that origin, " +
			"so that the API token is never sent elsewhere and https never falls back to http; " +
			"if the service has moved, set base_url to its new address"
	case errors.As(err, &endless) && endless.RepeatedCursor != "":
		return endless.Error() + "; stopping instead of reading the same pages forever"
	case errors.As(err, &endless) && endless.MaxPages > 0:
		return endless.Error() + ", the most the provider reads of one list; stopping instead of reading forever"
	case errors.As(err, &endless):
		return endless.Error() + "; stopping instead of reading the same items forever"
	}
	return err.Error()
}

// rateLimitAdvice follows a request the service's rate limit held past its
// deadline.
const rateLimitAdvice = " A create may wait as long as its timeouts.create (default 10m), any other request 10 minutes. " +
	"A request answered 429 was not acted on, and one not sent did nothing, so applying again is safe, a create included. " +
	"If the account's quota is shared, set max_requests_per_second to this run's share, or lower -parallelism; see the Rate limits guide."

const uncertainAdvice = "The service may have created the subscription even so. It was not retried, so that no second eSIM is used. " +
	"Look for it among the newest subscriptions (the mobileplan_subscriptions data source lists newest first), and if it is there, " +
	"bring it under Terraform with `terraform import <resource address> <subscription id>` or an import block instead of applying again."

func nextStep(e *client.APIError) string {
	switch {
	case e.StatusCode == http.StatusUnauthorized:
		return "The API token was refused. " + TokenHelp
	case e.StatusCode == http.StatusForbidden:
		return "The token is valid but may not perform this operation; use a token of the account that owns the object."
	case e.Code == client.CodeOutOfInventory:
		return "No suitable eSIM is free in the account's inventory: a plan with a label needs a free eSIM with that label, and a plan without one (an inline plan included) any free eSIM. " + GrowInventory
	case e.StatusCode == http.StatusPreconditionFailed:
		return "The plan cannot be subscribed to: it does not exist, is archived, or is an addon plan. " + ChooseSubscribablePlan
	case e.StatusCode == http.StatusTooManyRequests:
		wait := ""
		if e.RetryAfter > 0 {
			wait = fmt.Sprintf(" Its last answer asked to wait %s (Retry-After), longer than this request had left before its deadline.", client.FormatWait(e.RetryAfter))
		}
		return "The service's rate limit refused the request until its deadline." + wait + rateLimitAdvice
	case e.StatusCode >= 500:
		return "The service, or a gateway in front of it, failed. Try again later; if it persists, contact the service's support with the time of the failure."
	case e.StatusCode == http.StatusBadRequest:
		return "The service rejected the request as invalid; the message above says which field."
	}
	return ""
}
