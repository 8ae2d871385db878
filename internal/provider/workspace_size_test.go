package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// sizeHolding is a memory of a state holding ids, as a process that read
// them would have left it; nil for none.
func sizeHolding(t *testing.T, ids []string) *workspaceSize {
	t.Helper()
	if len(ids) == 0 {
		return nil
	}
	dir := t.TempDir()
	run := &workspaceSize{dir: dir}
	for _, id := range ids {
		run.read(id)
	}
	run.end()
	return &workspaceSize{dir: dir}
}

// subscriptionIDs are n ids starting with prefix.
func subscriptionIDs(prefix string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("sub_%s%012d", prefix, i)
	}
	return ids
}

// A run of one provider process in dir: what it reads, creates and
// deletes, then its end.
type sizeRun struct{ reads, creates, deletes []string }

func (r sizeRun) in(dir string) {
	w := &workspaceSize{dir: dir}
	for _, id := range r.reads {
		w.read(id)
	}
	for _, id := range r.creates {
		w.created(id)
	}
	for _, id := range r.deletes {
		w.deleted(id)
	}
	w.end()
}

// expectedAfter is what a new process in dir expects once Reads of ids
// have come, in order.
func expectedAfter(dir string, ids ...string) int {
	w := &workspaceSize{dir: dir}
	n := 0
	for _, id := range ids {
		n = w.expectedFor(id)
	}
	return n
}

// Rows of runs, one process after the other, then what the next
// process's Reads expect.
func TestWorkspaceSize_remembersEachConfigurationsOwnSubscriptions(t *testing.T) {
	a, b := subscriptionIDs("a", 300), subscriptionIDs("b", 5)
	for _, tc := range []struct {
		name  string
		runs  []sizeRun
		reads []string // of the next process
		want  int
	}{
		{name: "an apply from empty state", runs: []sizeRun{{creates: a}}, reads: a[:1], want: 300},
		{name: "its refresh, then one that finds 10 gone", runs: []sizeRun{{creates: a}, {reads: a}, {reads: a[10:], deletes: a[:10]}}, reads: a[100:101], want: 290},
		{name: "an apply that deletes 10", runs: []sizeRun{{creates: a}, {reads: a}, {deletes: a[:10]}}, reads: a[100:101], want: 290},
		{name: "a refresh, then an apply that adds 5: the first Read may see either", runs: []sizeRun{{creates: a[:295]}, {reads: a[:295]}, {creates: a[295:]}}, reads: []string{a[299], a[0]}, want: 300},
		{name: "a targeted refresh of 10 keeps the rest", runs: []sizeRun{{creates: a}, {reads: a[:10]}}, reads: []string{a[0], a[200]}, want: 300},
		{name: "another configuration's subscriptions are not this one's", runs: []sizeRun{{creates: a}, {creates: b}}, reads: b, want: 5},
		{name: "nor the other way round", runs: []sizeRun{{creates: a}, {creates: b}}, reads: a[:3], want: 300},
		{name: "a replacement", runs: []sizeRun{{creates: a[:299]}, {creates: a[299:], deletes: a[:1]}}, reads: a[1:2], want: 298},
		{name: "nothing remembered", reads: a[:1], want: 0},
		{name: "a process that saw nothing changes nothing", runs: []sizeRun{{creates: a}, {}}, reads: a[:1], want: 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "default.sizes")
			for _, run := range tc.runs {
				run.in(dir)
			}
			if got := expectedAfter(dir, tc.reads...); got != tc.want {
				t.Errorf("expected %d subscriptions, want %d", got, tc.want)
			}
		})
	}
}

// A file not written by the provider is not believed.
func TestWorkspaceSize_ignoresWhatItDidNotWrite(t *testing.T) {
	dir := t.TempDir()
	a := subscriptionIDs("a", 3)
	sizeRun{creates: a}.in(dir)
	if err := os.WriteFile(filepath.Join(dir, "0-1.ids"), []byte("many\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := expectedAfter(dir, a[0]); got != 3 {
		t.Errorf("expected %d, want 3", got)
	}
}

// Entries of configurations long gone are dropped beyond the bound.
func TestWorkspaceSize_keepsAtMostItsBound(t *testing.T) {
	dir := t.TempDir()
	for i := range maxSizeEntries + 5 {
		sizeRun{creates: subscriptionIDs(fmt.Sprintf("c%d_", i), 1)}.in(dir)
	}
	expectedAfter(dir, "sub_x")
	files, _ := filepath.Glob(filepath.Join(dir, "*.ids"))
	if len(files) != maxSizeEntries {
		t.Errorf("%d entries kept, want %d", len(files), maxSizeEntries)
	}
}

// A provider served without a memory expects nothing, and ending it
// writes nothing.
func TestWorkspaceSize_nil(t *testing.T) {
	var w *workspaceSize
	if w.expectedFor("sub_1") != 0 {
		t.Error("a nil memory expects subscriptions")
	}
	w.read("sub_1")
	w.end()
}
