package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
)

// MaxBodyBytes bounds the body a Handler reads: every event the service
// sends is far smaller, and an unauthenticated caller must not make the
// receiver buffer without limit.
const MaxBodyBytes = 1 << 20

// Handler is an http.Handler for the service's webhook calls. It verifies
// the signature over the exact body before it parses anything, then hands
// the typed event to handle. It answers 204 when handle succeeded; 401 for a
// missing or wrong signature, 400 for a body that is not an event, and 500
// when handle failed. Any answer but a 2xx makes the service deliver the
// event again, with backoff, so delivery is at least once: handle must
// tolerate an event it has seen before.
func Handler(secret string, handle func(context.Context, Event) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "webhook calls are POST requests", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, "webhook: the body is larger than any event", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "webhook: the body could not be read", http.StatusBadRequest)
			return
		}
		if err := Verify(secret, body, r.Header.Get(SignatureHeader)); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		ev, err := Parse(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := handle(r.Context(), ev); err != nil {
			// The handler's own error may name internals of the receiver:
			// the service needs only to know that it should try again.
			http.Error(w, "webhook: the event was not handled; deliver it again", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
