// Package protocol declares, once, what a protocol server placed in front
// of the framework's must offer: Server. The provider's seam and the
// speed-ups of package fastpath each wrap the framework's server, and each
// embeds a Server, so that a wrapper hides none of its services. It
// imports nothing of this repository, so that fastpath, which imports
// nothing of the provider, and the provider share it.
package protocol

import "github.com/hashicorp/terraform-plugin-go/tfprotov6"

// Server is every service the framework's protocol 6 server offers, the
// optional ones included (list resources, actions, state stores):
// Terraform finds those by type assertion, so a wrapper that embedded
// only tfprotov6.ProviderServer would hide them. A server that lacks one
// is left unwrapped.
type Server interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
	tfprotov6.StateStoreServer
}
