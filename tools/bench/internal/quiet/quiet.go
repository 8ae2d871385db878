// Package quiet is what the bench's floor providers share with the
// mobileplan provider's main: the plugin SDK's loggers off when nobody
// asked for logs.
package quiet

import "os"

// UnlessLogging turns the plugin SDK's loggers off when no TF_LOG*
// variable is set, as the mobileplan provider's main does:
// terraform-plugin-go otherwise encodes every SDK log line at TRACE, for
// Terraform to throw away. A floor that paid for that encoding would
// flatter us. providerLogVar is the provider's own TF_LOG_PROVIDER_<NAME>.
func UnlessLogging(providerLogVar string) {
	vars := []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER", providerLogVar}
	for _, v := range append([]string{"TF_LOG", "TF_ACC_LOG_PATH"}, vars...) {
		if os.Getenv(v) != "" {
			return
		}
	}
	for _, v := range vars {
		_ = os.Setenv(v, "OFF")
	}
}
