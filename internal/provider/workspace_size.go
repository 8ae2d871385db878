package provider

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// workspaceSize remembers, between the provider processes of one working
// directory and workspace, which subscriptions its state holds. Terraform
// never tells a provider how many Reads a refresh will send, and the paged
// refresh (paged_refresh.go) needs to know: ten Reads held while the scan
// crosses pages no Read has asked for yet look the same whether thousands
// more will follow or none. With the size remembered, a refresh of a large
// state reads the list to its end whatever order Terraform sends its
// Reads in, and sends the same requests in every run.
//
// A workspace may configure the provider more than once (aliases, other
// accounts), each configuration a process of its own with subscriptions
// of its own, so the memory is kept by subscription, not by workspace:
// each process leaves an entry, the hashes of the ids its state holds as
// far as it saw (what it read in a refresh and created, less what it
// deleted), and takes those ids out of the entries other runs left. The
// next run's process counts the entries its Reads' ids are found in: the
// size of its own part of the state, never another configuration's. The
// plan of `terraform apply` refreshes and the apply then creates, in two
// processes, one after the other: the refresh's entry holds what was in
// state, the apply's what it added.
//
// The entries live beside the journal of creates, in Terraform's data
// directory, one directory a workspace, one file an entry; each process
// writes only its own and those holding its ids, so processes ending
// together do not overwrite each other. A lost or stale entry costs
// requests, never a wrong answer.
type workspaceSize struct {
	dir string

	loadOnce sync.Once
	mu       sync.Mutex
	entries  []*sizeEntry // as the process found them
	matched  map[*sizeEntry]bool
	expected int                 // ids in the matched entries
	holds    map[uint64]struct{} // read or created by this process
	gone     map[uint64]struct{} // deleted by this process
}

// sizeEntry is one entry: the id hashes one process left.
type sizeEntry struct {
	file string
	ids  map[uint64]struct{}
}

// KeepWorkspaceSize makes the provider remember its state's subscriptions
// for the working directory dir; the returned func writes its entry when
// the process ends.
func KeepWorkspaceSize(dir string) (Option, func()) {
	journalPath, _ := journal.Locate(dir)
	w := &workspaceSize{dir: strings.TrimSuffix(journalPath, ".journal") + ".sizes"}
	return func(o *options) { o.size = w }, w.end
}

// maxSizeEntries bounds the entries kept: those of provider
// configurations since removed are never taken up again, and the oldest
// beyond this many are deleted.
const maxSizeEntries = 32

// maxEntryIDs bounds what one entry may hold: a larger file is not one
// this provider wrote.
const maxEntryIDs = 1_000_000

func idHash(id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return h.Sum64()
}

// load reads the entries other processes left, once.
func (w *workspaceSize) load() {
	w.loadOnce.Do(func() {
		w.matched = map[*sizeEntry]bool{}
		w.holds = map[uint64]struct{}{}
		w.gone = map[uint64]struct{}{}
		files, _ := filepath.Glob(filepath.Join(w.dir, "*.ids"))
		if len(files) > maxSizeEntries {
			files = w.dropOldest(files)
		}
		for _, f := range files {
			if ids, ok := readEntry(f); ok {
				w.entries = append(w.entries, &sizeEntry{file: f, ids: ids})
			}
		}
	})
}

// dropOldest deletes the oldest entry files beyond maxSizeEntries and
// returns the rest.
func (w *workspaceSize) dropOldest(files []string) []string {
	mtime := func(f string) time.Time {
		if info, err := os.Stat(f); err == nil {
			return info.ModTime()
		}
		return time.Time{}
	}
	slices.SortFunc(files, func(a, b string) int { return mtime(b).Compare(mtime(a)) })
	for _, f := range files[maxSizeEntries:] {
		_ = os.Remove(f)
	}
	return files[:maxSizeEntries]
}

func readEntry(file string) (map[uint64]struct{}, bool) {
	f, err := os.Open(file)
	if err != nil {
		return nil, false
	}
	defer func() { _ = f.Close() }()
	ids := map[uint64]struct{}{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		h, err := strconv.ParseUint(sc.Text(), 16, 64)
		if err != nil || len(ids) >= maxEntryIDs {
			return nil, false
		}
		ids[h] = struct{}{}
	}
	return ids, sc.Err() == nil
}

// expectedFor is how many subscriptions the state of this process is
// remembered to hold, as far as the Reads so far, id's included, show:
// the ids of the entries they are found in. 0 without a memory.
func (w *workspaceSize) expectedFor(id string) int {
	if w == nil {
		return 0
	}
	w.load()
	h := idHash(id)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range w.entries {
		if _, ok := e.ids[h]; ok && !w.matched[e] {
			w.matched[e] = true
			w.expected += len(e.ids)
		}
	}
	return w.expected
}

// read records a subscription found in a refresh; created, one created;
// deleted, one deleted (removed from state).
func (w *workspaceSize) read(id string)    { w.record(id, true) }
func (w *workspaceSize) created(id string) { w.record(id, true) }
func (w *workspaceSize) deleted(id string) { w.record(id, false) }

func (w *workspaceSize) record(id string, holds bool) {
	if w == nil || id == "" {
		return
	}
	w.load()
	h := idHash(id)
	w.mu.Lock()
	defer w.mu.Unlock()
	if holds {
		w.holds[h] = struct{}{}
		delete(w.gone, h)
	} else {
		w.gone[h] = struct{}{}
		delete(w.holds, h)
	}
}

// end writes this process's entry, and takes its ids, and those it
// deleted, out of the entries other processes left.
func (w *workspaceSize) end() {
	if w == nil {
		return
	}
	w.load()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.holds)+len(w.gone) == 0 {
		return
	}
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		return
	}
	for _, e := range w.entries {
		changed := false
		for h := range e.ids {
			_, held := w.holds[h]
			_, gone := w.gone[h]
			if held || gone {
				delete(e.ids, h)
				changed = true
			}
		}
		switch {
		case !changed:
		case len(e.ids) == 0:
			_ = os.Remove(e.file)
		default:
			_ = writeEntry(e.file, e.ids)
		}
	}
	if len(w.holds) > 0 {
		_ = writeEntry(filepath.Join(w.dir, fmt.Sprintf("%d-%d.ids", time.Now().UnixNano(), os.Getpid())), w.holds)
	}
}

// writeEntry writes a whole file or none: a process killed while writing
// leaves the old one.
func writeEntry(file string, ids map[uint64]struct{}) error {
	var b strings.Builder
	for h := range ids {
		fmt.Fprintf(&b, "%016x\n", h)
	}
	tmp := fmt.Sprintf("%s.%d.tmp", file, os.Getpid())
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}
