package process

import (
	"os"
	"os/signal"
)

// Interrupted returns a channel closed at the process's first interrupt
// (SIGINT). Ctrl-C in a terminal, and a CI runner cancelling a job, signal
// Terraform's whole process group, the provider included. Terraform asks
// the provider to stop only in some phases: while `terraform apply` plans,
// it lets the plan run to its end before it exits, and a plan that reads
// the service (the preflight) would go on reading for as long as that
// takes. The interrupt itself is the one signal the provider gets there.
// go-plugin's server ignores it, so that the provider is stopped through
// Terraform, not killed: this channel adds a listener, it takes nothing away.
func Interrupted() <-chan struct{} {
	interrupted := make(chan struct{})
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt)
	go func() {
		<-signals
		signal.Stop(signals)
		close(interrupted)
	}()
	return interrupted
}
