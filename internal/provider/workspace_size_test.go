package provider

import (
	"os"
	"path/filepath"
	"testing"
)

// The size each process leaves, from what it saw: rows of (file before,
// Reads, creates, deletes) → file after.
func TestWorkspaceSize_end(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		before                  string // "" for no file
		reads, creates, deletes int64
		want                    string // "" for no file
		expected                int    // what the process found
	}{
		{name: "an apply from empty state", creates: 300, want: "300\n"},
		{name: "a refresh counts its Reads", before: "300\n", reads: 290, want: "290\n", expected: 300},
		{name: "an apply adds its creates to the size remembered", before: "290\n", creates: 10, want: "300\n", expected: 290},
		{name: "an apply takes away its deletes", before: "300\n", deletes: 10, want: "290\n", expected: 300},
		{name: "a refresh and a replacement", before: "300\n", reads: 300, creates: 1, deletes: 1, want: "300\n", expected: 300},
		{name: "a process that saw none leaves the file", before: "300\n", want: "300\n", expected: 300},
		{name: "a process that saw none writes none"},
		{name: "never below zero", before: "5\n", deletes: 7, want: "0\n", expected: 5},
		{name: "a file not ours is not believed", before: "many\n", creates: 3, want: "3\n"},
		{name: "nor an absurd size", before: "99999999999\n", creates: 3, want: "3\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TF_DATA_DIR", "")
			t.Setenv("TF_WORKSPACE", "")
			opt, end := KeepWorkspaceSize(dir)
			var o options
			opt(&o)
			file := filepath.Join(dir, ".terraform", "mobileplan", "default.size")
			if tc.before != "" {
				if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(tc.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if got := o.size.expected(); got != tc.expected {
				t.Errorf("expected() = %d, want %d", got, tc.expected)
			}
			o.size.reads.Store(tc.reads)
			o.size.creates.Store(tc.creates)
			o.size.deletes.Store(tc.deletes)
			end()
			got, err := os.ReadFile(file)
			if tc.want == "" {
				if !os.IsNotExist(err) {
					t.Errorf("a size file was written: %q, %v", got, err)
				}
				return
			}
			if string(got) != tc.want {
				t.Errorf("size file %q, want %q (%v)", got, tc.want, err)
			}
		})
	}
}

// A provider served without a remembered size expects nothing, and ending
// it writes nothing.
func TestWorkspaceSize_nil(t *testing.T) {
	var w *workspaceSize
	if w.expected() != 0 {
		t.Error("a nil size expects subscriptions")
	}
	w.end()
}
