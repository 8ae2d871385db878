package main

import (
	"strings"
	"testing"
)

// maxProviderPairs is how many pairs of the provider package's files may
// use each other's names: each such pair is a place where reading the
// package from the bottom up needs a name not read yet.
const maxProviderPairs = 3

// The provider package's files stack, but for at most maxProviderPairs
// pairs: a helper belongs in the file of its only user, or below every
// file that uses it.
func TestProviderPackageStacks(t *testing.T) {
	uses, names, err := fileUses("../../internal/provider")
	if err != nil {
		t.Fatal(err)
	}
	if len(uses) < 10 {
		t.Fatalf("%d files read, want the provider package's", len(uses))
	}
	_, pairs := stack(uses)
	if len(pairs) > maxProviderPairs {
		var lines []string
		for _, p := range pairs {
			lines = append(lines, p[0]+" uses "+p[1]+", above it: "+strings.Join(names[p[0]][p[1]], ", "))
		}
		t.Errorf("%d pairs of files use each other's names, at most %d allowed; move each name to the file of its only user, or below every file that uses it:\n%s",
			len(pairs), maxProviderPairs, strings.Join(lines, "\n"))
	}
}

func graph(edges ...string) map[string]map[string]bool {
	uses := map[string]map[string]bool{}
	for _, e := range edges {
		from, to, _ := strings.Cut(e, ">")
		for _, f := range []string{from, to} {
			if uses[f] == nil {
				uses[f] = map[string]bool{}
			}
		}
		uses[from][to] = true
	}
	return uses
}

// The count is the fewest upward pairs any stacking has: none without a
// loop, one per two files using each other, one for a loop of three
// files, and the best order found for a loop too large to try every order.
func TestStack_countsTheFewestUpwardPairs(t *testing.T) {
	big := []string{}
	for i := range exactLimit + 2 {
		from, to := string(rune('a'+i)), string(rune('a'+(i+1)%(exactLimit+2)))
		big = append(big, from+">"+to)
	}
	for name, c := range map[string]struct {
		uses map[string]map[string]bool
		want int
	}{
		"a chain":              {graph("a>b", "b>c", "a>c"), 0},
		"two ways":             {graph("a>b", "b>a", "b>c"), 1},
		"a loop of three":      {graph("a>b", "b>c", "c>a"), 1},
		"two loops":            {graph("a>b", "b>a", "c>d", "d>c", "a>c"), 2},
		"loops sharing a file": {graph("a>b", "b>a", "b>c", "c>b"), 2},
		"a large loop":         {graph(big...), 1},
	} {
		order, pairs := stack(c.uses)
		if len(pairs) != c.want {
			t.Errorf("%s: %d upward pairs %v (order %v), want %d", name, len(pairs), pairs, order, c.want)
		}
		if len(order) != len(c.uses) {
			t.Errorf("%s: order %v, want every file once", name, order)
		}
	}
}
