//go:build unix

package state

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A state file is checked before it is trusted: what is not a state
// database in good order (truncated, damaged, not a regular file) is
// refused at once, in one line that names the file and says what is wrong,
// and the file is left as it was. bbolt alone reads past the end of a
// truncated file (a fault that kills the process with a trace) and blocks
// forever opening a FIFO.
func TestStateFileRefusedUntouched(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		make func(t *testing.T, dir string) string
		want string
	}{
		"truncated after its header": {func(t *testing.T, dir string) string {
			path := stateFile(t, dir)
			truncate(t, path, usedSize(t, path)/2+123)
			return path
		}, "is truncated"},
		"truncated inside its header": {func(t *testing.T, dir string) string {
			path := stateFile(t, dir)
			truncate(t, path, 700)
			return path
		}, "is truncated"},
		"free-page list overwritten": {func(t *testing.T, dir string) string {
			path := stateFile(t, dir)
			overwritePage(t, path, pageOfType(t, path, "freelist"), 0x5a)
			return path
		}, "is damaged"},
		"every page after the header overwritten": {func(t *testing.T, dir string) string {
			path := stateFile(t, dir)
			raw := readAll(t, path)
			ps := pageSize(t, path)
			for i := 2 * ps; i < len(raw); i++ {
				raw[i] = byte(i * 7)
			}
			writeFile(t, path, raw)
			return path
		}, "is damaged"},
		"both meta pages zeroed": {func(t *testing.T, dir string) string {
			path := stateFile(t, dir)
			overwritePage(t, path, 0, 0)
			overwritePage(t, path, 1, 0)
			return path
		}, "neither meta page is valid"},
		"a directory": {func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "state.d")
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			return path
		}, "is a directory, not a regular file"},
		"a FIFO": {func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "state.fifo")
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
			return path
		}, "is a named pipe (FIFO), not a regular file"},
		"a socket": {func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "s") // short: socket paths are limited to about 100 bytes
			ln, err := net.Listen("unix", path)
			if err != nil {
				t.Skipf("no unix socket here: %v", err)
			}
			t.Cleanup(func() { _ = ln.Close() })
			return path
		}, "is a socket, not a regular file"},
		"a symbolic link to /dev/null": {func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "state.db")
			if err := os.Symlink(os.DevNull, path); err != nil {
				t.Fatal(err)
			}
			return path
		}, "is a character device, not a regular file"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := c.make(t, t.TempDir())
			before := fileState(t, path)
			err := openWithin(t, path, 5*time.Second)
			if err == nil {
				t.Fatal("the store opened it")
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q is not one line naming %s and saying %q", msg, path, c.want)
			}
			if after := fileState(t, path); after != before {
				t.Errorf("the file changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// Damage to any page a state file uses is refused; damage to a free page,
// or to the room bbolt keeps beyond its pages, is harmless. It never
// crashes the process. The file is one bbolt wrote, damaged a page at a
// time.
func TestStateFileDamagedPageNeverCrashes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Large enough for branch pages and records spread over several leaves.
	writeStateFile(t, filepath.Join(dir, "state.db"), testDataset(40, 600), 200)
	good := readAll(t, filepath.Join(dir, "state.db"))
	ps := pageSize(t, filepath.Join(dir, "state.db"))
	types := pageTypes(t, filepath.Join(dir, "state.db"))
	for page := 2; page*ps < len(good); page++ {
		for _, fill := range []byte{0x00, 0xff, 0x5a} {
			path := filepath.Join(dir, "damaged.db")
			raw := bytes.Clone(good)
			for i := page * ps; i < (page+1)*ps; i++ {
				raw[i] = fill
			}
			writeFile(t, path, raw)
			err := openWithin(t, path, 5*time.Second)
			typ := "beyond the pages in use"
			if page < len(types) {
				typ = types[page]
			}
			switch {
			case err != nil && !strings.Contains(err.Error(), path):
				t.Errorf("page %d (%s) filled with %#x: error %q does not name the file", page, typ, fill, err)
			case err == nil && (typ == "leaf" || typ == "branch" || typ == "freelist"):
				t.Errorf("page %d (%s) filled with %#x: accepted", page, typ, fill)
			}
		}
	}
}

// stateFile writes a state database with a few subscriptions in dir.
func stateFile(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "state.db")
	writeStateFile(t, path, testDataset(3, 4), 2)
	return path
}

// writeStateFile makes a state database at path from ds, with subs
// subscriptions, through the store: bbolt writes it.
func writeStateFile(t *testing.T, path string, ds Dataset, subs int) {
	t.Helper()
	s, err := Open(Options{Path: path, Dataset: ds})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range subs {
		if err := s.Update(func(tx *Tx) error {
			plan, _ := tx.Plan(ds.Plans[0].ID)
			if _, ok := tx.Subscribe(plan, tx.Now()); !ok {
				return errors.New("no eSIM left")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// openWithin opens the store on the file at path and closes it; it fails
// the test when the open does not return within limit.
func openWithin(t *testing.T, path string, limit time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		s, err := Open(Options{Path: path})
		if err == nil {
			_ = s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("opening %s did not return within %v", path, limit)
		return nil
	}
}

func writeFile(t *testing.T, path string, raw []byte) {
	t.Helper()
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// fileState is what a refusal must leave as it was: kind, size, time of
// change and content.
func fileState(t *testing.T, path string) string {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	s := info.Mode().String() + " " + info.ModTime().String()
	if info.Mode().IsRegular() {
		s += " " + string(readAll(t, path))
	}
	return s
}

// inspect runs fn on the database at path, opened with bbolt directly.
// Not read-only: then bbolt does not load the free-page list, which
// pageTypes needs.
func inspect(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(fn); err != nil {
		t.Fatal(err)
	}
}

func pageSize(t *testing.T, path string) (size int) {
	t.Helper()
	inspect(t, path, func(tx *bolt.Tx) error { size = tx.DB().Info().PageSize; return nil })
	return size
}

// usedSize is how much of the file the database uses: all its pages.
func usedSize(t *testing.T, path string) (size int) {
	t.Helper()
	inspect(t, path, func(tx *bolt.Tx) error { size = int(tx.Size()); return nil })
	return size
}

// pageOfType is the first page of the given type ("freelist", "leaf", ...).
func pageOfType(t *testing.T, path, typ string) int {
	t.Helper()
	for id, got := range pageTypes(t, path) {
		if got == typ {
			return id
		}
	}
	t.Fatalf("no %s page in %s", typ, path)
	return 0
}

// pageTypes are the types of the pages the database counts, by page id.
func pageTypes(t *testing.T, path string) (types []string) {
	t.Helper()
	inspect(t, path, func(tx *bolt.Tx) error {
		for id := 0; ; id++ {
			info, err := tx.Page(id)
			if err != nil || info == nil {
				return err
			}
			types = append(types, info.Type)
		}
	})
	return types
}

func overwritePage(t *testing.T, path string, page int, fill byte) {
	t.Helper()
	ps := pageSize(t, path)
	raw := readAll(t, path)
	for i := page * ps; i < (page+1)*ps; i++ {
		raw[i] = fill
	}
	writeFile(t, path, raw)
}

func truncate(t *testing.T, path string, size int) {
	t.Helper()
	if err := os.Truncate(path, int64(size)); err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
