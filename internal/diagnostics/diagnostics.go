// Package diagnostics turns service errors into Terraform diagnostics. Every
// diagnostic the provider shows for a failed API call is written here, so
// they all name the operation, the HTTP status and what the service said
// (code, message, docsUrl, suggestions), and end with a next step.
package diagnostics

import (
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
	var b strings.Builder
	var apiErr *client.APIError
	var uncertain *client.UncertainCreateError
	var reqErr *client.RequestError
	var pageErr *client.PageError

	if errors.As(err, &pageErr) {
		fmt.Fprintf(&b, "Listing stopped at page %d, after %d items had been read.\n", pageErr.Page, pageErr.ItemsRead)
	}
	switch {
	case errors.As(err, &apiErr):
		fmt.Fprintf(&b, "The service answered HTTP %s to %s %s", apiErr.Status, apiErr.Method, apiErr.Path)
		if apiErr.Attempts > 1 {
			fmt.Fprintf(&b, " (after %d attempts)", apiErr.Attempts)
		}
		b.WriteString(".\n")
		if apiErr.Code != "" {
			fmt.Fprintf(&b, "Code: %s\n", apiErr.Code)
		}
		if apiErr.Message != "" {
			fmt.Fprintf(&b, "Message: %s\n", apiErr.Message)
		}
		if apiErr.Code == "" && apiErr.Message == "" {
			if apiErr.BodyExcerpt == "" {
				b.WriteString("The answer had an empty body, as a proxy or gateway in front of the service sends.\n")
			} else {
				fmt.Fprintf(&b, "The answer was not a service error; it began: %s\n", apiErr.BodyExcerpt)
			}
		}
		for _, d := range apiErr.Details {
			if line := d.String(); line != "" {
				fmt.Fprintf(&b, "Detail: %s\n", line)
			}
		}
		if apiErr.Hint != "" {
			fmt.Fprintf(&b, "Hint: %s\n", apiErr.Hint)
		}
		if apiErr.DocsURL != "" {
			fmt.Fprintf(&b, "Docs: %s\n", apiErr.DocsURL)
		}
		if next := nextStep(apiErr); next != "" {
			fmt.Fprintf(&b, "\n%s", next)
		}
		if errors.As(err, &uncertain) {
			b.WriteString("\n\n" + uncertainAdvice)
		}
	case errors.As(err, &uncertain):
		fmt.Fprintf(&b, "%v\n\n%s", uncertain.Err, uncertainAdvice)
	case errors.As(err, &reqErr):
		fmt.Fprintf(&b, "%v\n\nCheck base_url and that the service (or the emulator) is reachable from here.", reqErr)
	case pageErr != nil:
		b.WriteString(pageErr.Err.Error()) // the page and count are said above
	default:
		b.WriteString(err.Error())
	}
	return strings.TrimRight(b.String(), "\n")
}

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
		return "No suitable eSIM is free in the account's inventory for this plan's label. " + GrowInventory
	case e.StatusCode == http.StatusPreconditionFailed:
		return "The plan cannot be subscribed to: it does not exist, is archived, or is an addon plan. " + ChooseSubscribablePlan
	case e.StatusCode == http.StatusTooManyRequests:
		return "The service kept rate-limiting the provider. Try again later, or run Terraform with a lower -parallelism."
	case e.StatusCode >= 500:
		return "The service, or a gateway in front of it, failed. Try again later; if it persists, contact the service's support with the time of the failure."
	case e.StatusCode == http.StatusBadRequest:
		return "The service rejected the request as invalid; the message above says which field."
	}
	return ""
}
