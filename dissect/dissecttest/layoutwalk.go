package dissecttest

import (
	"fmt"

	"github.com/bcdump/bcdump/dissect/game"
)

// The conformance generator (enc) and the branch tracer (tracer) run a
// layout on one payload, each its own way, through game.Walk: runLayout
// names each step by its path (stepPath, as Branches names the branches)
// and asks the interpreter which branch a step takes and how many rounds a
// loop makes.

// interp is an interpreter of layout steps.
type interp interface {
	// step runs s, named p, up to its branches: a read reads and returns
	// Skip, an end returns Stop; a step with branches returns Into and
	// the one it takes.
	step(p string, s *game.Step) (game.Action, pick)
	// enter and exit are called around each round of a branch taken.
	enter(s *game.Step, b game.Branch)
	exit(s *game.Step, b game.Branch)
}

// pick is the branch a step takes: kind (and the case's value), for
// rounds rounds, or while more says so (a loop that counts bytes left).
type pick struct {
	kind   game.BranchKind
	value  uint64
	rounds uint64
	more   func() bool
}

func once(kind game.BranchKind) pick { return pick{kind: kind, rounds: 1} }

// none takes no branch.
var none = pick{kind: -1}

// runLayout runs steps with in; it reports whether the layout ended (done,
// return, fail).
func runLayout(in interp, steps []game.Step) bool {
	r := &layoutRunner{in: in, paths: []string{""}}
	return game.Walk(steps, r)
}

type layoutRunner struct {
	in    interp
	paths []string // the path of each branch being walked, the layout's ""
	open  []opened // each step with branches being walked
}

type opened struct {
	path string
	pick pick
}

func (r *layoutRunner) Step(i int, s *game.Step) game.Action {
	p := stepPath(r.paths[len(r.paths)-1], i, *s)
	act, pk := r.in.step(p, s)
	if act == game.Into {
		r.open = append(r.open, opened{p, pk})
	}
	return act
}

func (r *layoutRunner) Branch(s *game.Step, b game.Branch, round int) bool {
	o := r.open[len(r.open)-1]
	pk := o.pick
	if b.Kind != pk.kind || b.Kind == game.BranchCase && b.Value != pk.value {
		return false
	}
	if pk.more != nil {
		if !pk.more() {
			return false
		}
	} else if uint64(round) >= pk.rounds {
		return false
	}
	p := o.path
	switch b.Kind {
	case game.BranchCase:
		p = fmt.Sprintf("%s/0x%X", p, b.Value)
	case game.BranchElse:
		p += "/else"
	}
	r.paths = append(r.paths, p)
	r.in.enter(s, b)
	return true
}

func (r *layoutRunner) EndBranch(s *game.Step, b game.Branch) {
	r.in.exit(s, b)
	r.paths = r.paths[:len(r.paths)-1]
}

func (r *layoutRunner) Leave(*game.Step) { r.open = r.open[:len(r.open)-1] }
