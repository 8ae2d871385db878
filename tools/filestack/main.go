// Command filestack stacks the files of a Go package by the names they use
// of one another, and prints the pairs of files that use each other's
// names, directly or around a loop: the pairs no stacking can put one
// above the other. A package whose files stack reads from the bottom up,
// each file using only names of files below it.
//
//	go run ./tools/filestack [-max N] [package]
//
// It fails when there are more than -max pairs (default: no limit). Test
// files are left out: they use the package, they are not part of it.
package main

import (
	"flag"
	"fmt"
	"go/types"
	"maps"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	maxPairs := flag.Int("max", -1, "fail when more than this many pairs of files use each other's names (-1: no limit)")
	verbose := flag.Bool("v", false, "print every file's uses of other files, with the names")
	flag.Parse()
	pattern := "./internal/provider"
	if flag.NArg() > 0 {
		pattern = flag.Arg(0)
	}
	uses, names, err := fileUses(pattern)
	if err != nil {
		fmt.Fprintln(os.Stderr, "filestack:", err)
		os.Exit(2)
	}
	if *verbose {
		for _, user := range slices.Sorted(maps.Keys(names)) {
			for _, used := range slices.Sorted(maps.Keys(names[user])) {
				fmt.Printf("%s -> %s: %s\n", user, used, strings.Join(names[user][used], ", "))
			}
		}
	}
	order, pairs := stack(uses)
	fmt.Println("bottom up:")
	for _, f := range order {
		fmt.Println("  " + f)
	}
	for _, p := range pairs {
		fmt.Printf("%s uses %s, above it: %s\n", p[0], p[1], strings.Join(names[p[0]][p[1]], ", "))
	}
	fmt.Printf("%d pairs of files use each other's names, directly or around a loop\n", len(pairs))
	if *maxPairs >= 0 && len(pairs) > *maxPairs {
		fmt.Fprintf(os.Stderr, "filestack: %d pairs, at most %d allowed: move each name to the file of its only user, or below every file that uses it\n", len(pairs), *maxPairs)
		os.Exit(1)
	}
}

// fileUses loads the package pattern names and returns, for each of its
// files (base names), the files whose names it uses (their functions,
// types, variables, constants, and their types' methods and fields), and
// which names: names[user][used].
func fileUses(pattern string) (map[string]map[string]bool, map[string]map[string][]string, error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		return nil, nil, err
	}
	if len(pkgs) != 1 {
		return nil, nil, fmt.Errorf("%s: %d packages, want one", pattern, len(pkgs))
	}
	pkg := pkgs[0]
	if len(pkg.Errors) > 0 {
		return nil, nil, pkg.Errors[0]
	}
	uses := map[string]map[string]bool{}
	names := map[string]map[string][]string{}
	for _, f := range pkg.Syntax {
		uses[filepath.Base(pkg.Fset.File(f.Pos()).Name())] = map[string]bool{}
	}
	for ident, obj := range pkg.TypesInfo.Uses {
		if obj == nil || obj.Pkg() != pkg.Types || !declaredAtTop(obj) {
			continue
		}
		from := filepath.Base(pkg.Fset.Position(ident.Pos()).Filename)
		to := filepath.Base(pkg.Fset.Position(obj.Pos()).Filename)
		if from != to {
			uses[from][to] = true
			if names[from] == nil {
				names[from] = map[string][]string{}
			}
			if !slices.Contains(names[from][to], obj.Name()) {
				names[from][to] = append(names[from][to], obj.Name())
			}
		}
	}
	for _, byFile := range names {
		for _, n := range byFile {
			slices.Sort(n)
		}
	}
	return uses, names, nil
}

// declaredAtTop reports whether obj is a name a file declares for the
// whole package: a package-level name, a method, or a field of a
// package-level struct type.
func declaredAtTop(obj interface {
	Parent() *types.Scope
	Pkg() *types.Package
}) bool {
	switch o := obj.(type) {
	case *types.Func:
		return o.Signature().Recv() != nil || o.Parent() == o.Pkg().Scope()
	case *types.Var:
		return o.IsField() || o.Parent() == o.Pkg().Scope()
	}
	return obj.Parent() == obj.Pkg().Scope()
}

// stack orders the files bottom-up so that as few pairs of files as
// possible have a file below using a name of one above (the upward pairs,
// which a loop of uses makes unavoidable), and returns the order and those
// pairs, [user, used]. Files in no loop are ordered by their uses alone;
// within each loop the order is the best there is, found over every subset
// of the loop's files while it has at most exactLimit files, and by moving
// one file at a time until no move helps above that.
func stack(uses map[string]map[string]bool) ([]string, [][2]string) {
	var order []string
	for _, loop := range loops(uses) {
		if len(loop) > exactLimit {
			order = append(order, improved(loop, uses)...)
		} else {
			order = append(order, best(loop, uses)...)
		}
	}
	pos := map[string]int{}
	for i, f := range order {
		pos[f] = i
	}
	var upward [][2]string
	for _, f := range order {
		for g := range uses[f] {
			if pos[g] > pos[f] {
				upward = append(upward, [2]string{f, g})
			}
		}
	}
	sort.Slice(upward, func(i, j int) bool {
		if upward[i][0] != upward[j][0] {
			return upward[i][0] < upward[j][0]
		}
		return upward[i][1] < upward[j][1]
	})
	return order, upward
}

const exactLimit = 20

// loops are the strongly connected sets of files, each sorted by name, in
// an order where a set uses only names of sets before it (Tarjan's
// algorithm yields them so).
func loops(uses map[string]map[string]bool) [][]string {
	names := make([]string, 0, len(uses))
	for f := range uses {
		names = append(names, f)
	}
	sort.Strings(names)
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stackOf []string
	var out [][]string
	var visit func(string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stackOf = append(stackOf, v)
		onStack[v] = true
		targets := make([]string, 0, len(uses[v]))
		for w := range uses[v] {
			targets = append(targets, w)
		}
		sort.Strings(targets)
		for _, w := range targets {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var set []string
			for {
				w := stackOf[len(stackOf)-1]
				stackOf = stackOf[:len(stackOf)-1]
				onStack[w] = false
				set = append(set, w)
				if w == v {
					break
				}
			}
			sort.Strings(set)
			out = append(out, set)
		}
	}
	for _, f := range names {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	return out
}

// best is the order of files with the fewest upward pairs: cost[s] is the
// fewest for the subset s at the bottom, each file put on top adding the
// files below that use it.
func best(files []string, uses map[string]map[string]bool) []string {
	n := len(files)
	usedBy := make([]uint32, n) // usedBy[v]: the files that use v
	for i, f := range files {
		for j, g := range files {
			if uses[g][f] {
				usedBy[i] |= 1 << j
			}
		}
	}
	cost := make([]int16, 1<<n)
	last := make([]int8, 1<<n)
	for s := 1; s < 1<<n; s++ {
		cost[s] = -1
		for v := range n {
			if s&(1<<v) == 0 {
				continue
			}
			below := uint32(s) &^ (1 << v)
			c := cost[below] + int16(bits.OnesCount32(below&usedBy[v]))
			if cost[s] < 0 || c < cost[s] {
				cost[s], last[s] = c, int8(v)
			}
		}
	}
	order := make([]string, n)
	for s, i := 1<<n-1, n-1; s != 0; i-- {
		v := last[s]
		order[i] = files[v]
		s &^= 1 << v
	}
	return order
}

// improved is an order of files with few upward pairs, for a loop too
// large for best: each file moves to the place where it adds the fewest,
// until no move helps.
func improved(files []string, uses map[string]map[string]bool) []string {
	order := slices.Clone(files)
	upward := func(o []string) int {
		n := 0
		for i, f := range o {
			for _, g := range o[i+1:] {
				if uses[f][g] {
					n++
				}
			}
		}
		return n
	}
	for changed := true; changed; {
		changed = false
		for i := range order {
			f := order[i]
			rest := slices.Delete(slices.Clone(order), i, i+1)
			bestAt, bestCost := i, upward(order)
			for at := range len(order) {
				c := upward(slices.Insert(slices.Clone(rest), at, f))
				if c < bestCost {
					bestAt, bestCost = at, c
				}
			}
			if bestAt != i {
				order = slices.Insert(rest, bestAt, f)
				changed = true
			}
		}
	}
	return order
}
