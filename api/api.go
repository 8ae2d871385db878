// Package api holds the service's own account of its HTTP API: the OpenAPI
// document, embedded here so that the emulator serves the very file this
// folder's README describes.
package api

import _ "embed"

//go:embed openapi.yaml
var openAPIDocument []byte

// OpenAPIDocument is the OpenAPI 3 description of the /v1 API.
func OpenAPIDocument() []byte { return openAPIDocument }
