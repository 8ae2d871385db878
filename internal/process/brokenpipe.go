package process

import (
	"os/signal"
	"syscall"
)

// ignoreBrokenPipes keeps the process alive when Terraform is gone. The
// provider's standard output and error lead to Terraform; once Terraform
// has exited, Go's default for a write to either is to end the process
// with SIGPIPE. With logs on (TF_LOG_PROVIDER), the next log line would end
// it there: before the creates it holds are answered and recorded, and
// before its socket directory is removed. Ignored, such a write fails, and
// the line is lost, as no one is left to read it. The watch of the parent
// still ends the process (parent.go). Windows has no SIGPIPE: there this
// does nothing.
func ignoreBrokenPipes() { signal.Ignore(syscall.SIGPIPE) }
