// Command httpstate is the state store that `make bench-growth` gives
// Terraform's http backend: states kept in memory, on loopback, with the
// locking the backend asks for. It prints its address, then one line per
// state written to stderr when it exits: how often each CLI saves its
// state is what the growth table compares.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback address to listen on")
	flag.Parse()
	s := &store{states: map[string][]byte{}, locks: map[string]string{}, writes: map[string]int{}}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("HTTPSTATE_URL=http://%s\n", ln.Addr())
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
		<-stop
		s.report()
		os.Exit(0)
	}()
	log.Fatal(http.Serve(ln, s))
}

type store struct {
	mu     sync.Mutex
	states map[string][]byte
	locks  map[string]string // state name → the lock's body
	writes map[string]int
}

func (s *store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	name := r.URL.Path
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		state, ok := s.states[name]
		if !ok {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		_, _ = w.Write(state)
	case http.MethodPost:
		s.states[name] = body
		s.writes[name]++
	case http.MethodDelete:
		delete(s.states, name)
	case "LOCK":
		if held, ok := s.locks[name]; ok {
			w.WriteHeader(http.StatusLocked)
			_, _ = w.Write([]byte(held))
			return
		}
		s.locks[name] = string(body)
	case "UNLOCK":
		delete(s.locks, name)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// report writes how many times each state was written, and its size.
func (s *store) report() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, n := range s.writes {
		fmt.Fprintf(os.Stderr, "%s %d writes %d bytes\n", name, n, len(s.states[name]))
	}
}
