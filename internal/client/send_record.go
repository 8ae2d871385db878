package client

import (
	"context"
	"errors"
	"fmt"
)

// SendRecorder is told of each attempt of a request made with a context
// that carries it (WithSendRecorder): Sending right before the attempt is
// written, once the pace has admitted it, so that a record of a request
// sent means it was sent, not that it began waiting for its turn; Refused
// when the service answered the attempt 429, which acted on nothing,
// before the request waits to be sent again. A Sending error sends
// nothing: the request ends with a *SendRecordError.
type SendRecorder interface {
	Sending() error
	Refused()
}

type sendRecorderKey struct{}

// WithSendRecorder makes every attempt of the requests made with ctx tell
// r, as SendRecorder says.
func WithSendRecorder(ctx context.Context, r SendRecorder) context.Context {
	return context.WithValue(ctx, sendRecorderKey{}, r)
}

func sendRecorderOf(ctx context.Context) SendRecorder {
	r, _ := ctx.Value(sendRecorderKey{}).(SendRecorder)
	return r
}

// SendRecordError is a request not sent because its SendRecorder could
// not record that it was about to be: the service received nothing of it.
type SendRecordError struct {
	Err error
}

func (e *SendRecordError) Error() string {
	return fmt.Sprintf("its sending could not be recorded: %v", e.Err)
}

func (e *SendRecordError) Unwrap() error { return e.Err }

// IsSendRecordError reports whether err is a request its SendRecorder
// kept from being sent.
func IsSendRecordError(err error) bool {
	var e *SendRecordError
	return errors.As(err, &e)
}
