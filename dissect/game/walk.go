package game

// Walk is the one walker of the layout step language: the decoder
// generator, the field schema (WalkFields), the Wireshark plugin's tables
// and the conformance generator and its branch tracer all go through a
// layout with it, so a new kind of step or branch is added here once.
//
// Walk calls v.Step for each step of steps in order; unless it says Skip
// or Stop, Walk then offers v each of the step's branches in order (Body,
// each of Cases, Else, Shape: BranchBody, BranchCase, BranchElse,
// BranchShape), round 0, 1, ... until v.Branch declines (a loop's rounds;
// a branch walked once is accepted for round 0 only), calls v.EndBranch
// after each round, and then v.Leave. A visitor that runs the
// layout on a payload takes one branch and says Stop where the layout ends
// (done, return, fail); one that reads the layout takes them all.
//
// When the walk stops inside a branch, v.EndBranch and v.Leave are still
// called for the steps it stopped inside, innermost
// first, so containers opened in Branch close; Walk then reports true.
func Walk(steps []Step, v Visitor) (stopped bool) {
	for i := range steps {
		s := &steps[i]
		switch v.Step(i, s) {
		case Stop:
			return true
		case Skip:
			continue
		}
		stopped := false
		for _, b := range branches(s) {
			for round := 0; !stopped && v.Branch(s, b, round); round++ {
				stopped = Walk(b.Steps, v)
				v.EndBranch(s, b)
			}
			if stopped {
				break
			}
		}
		v.Leave(s)
		if stopped {
			return true
		}
	}
	return false
}

// Action is what a Visitor's Step tells Walk to do next.
type Action int

const (
	// Into goes on into the step's branches, then to the next step.
	Into Action = iota
	// Skip goes on to the next step without offering its branches.
	Skip
	// Stop ends the walk here: the layout ended.
	Stop
)

// BranchKind says which of a step's step lists a Branch is.
type BranchKind int

const (
	BranchBody  BranchKind = iota // Body: an If's then, a container's or loop's content
	BranchCase                    // one of a Switch's Cases
	BranchElse                    // Else: an If's else, a Switch's default
	BranchShape                   // Shape: the fields a checksum step's parser appends (never run)
)

// Branch is one step list of a step.
type Branch struct {
	Kind  BranchKind
	Value uint64 // the case's value (BranchCase)
	Steps []Step
}

// branches lists s's branches in walking order. A nil Body or Else is no
// branch; an empty one is.
func branches(s *Step) []Branch {
	if s.Body == nil && s.Cases == nil && s.Else == nil && s.Shape == nil {
		return nil
	}
	out := make([]Branch, 0, 2+len(s.Cases))
	if s.Body != nil {
		out = append(out, Branch{Kind: BranchBody, Steps: s.Body})
	}
	for _, c := range s.Cases {
		out = append(out, Branch{Kind: BranchCase, Value: c.Value, Steps: c.Body})
	}
	if s.Else != nil {
		out = append(out, Branch{Kind: BranchElse, Steps: s.Else})
	}
	if s.Shape != nil {
		out = append(out, Branch{Kind: BranchShape, Steps: s.Shape})
	}
	return out
}

// A Visitor is what Walk tells of the steps it goes through.
type Visitor interface {
	// Step is called on each step (i its index in its step list) before
	// its branches.
	Step(i int, s *Step) Action
	// Branch is called before each round of each branch of s (round 0,
	// 1, ...); false ends the branch (passes it by in round 0).
	Branch(s *Step, b Branch, round int) bool
	// EndBranch is called after each round of a branch.
	EndBranch(s *Step, b Branch)
	// Leave is called after s's branches.
	Leave(s *Step)
}

// Visit is a Visitor of functions for a reader of the whole layout: each
// branch OnBranch accepts is walked once. A nil function does what such a
// reader wants most (Into, every branch, nothing after).
type Visit struct {
	OnStep      func(i int, s *Step) Action
	OnBranch    func(s *Step, b Branch) bool
	OnEndBranch func(s *Step, b Branch)
	OnLeave     func(s *Step)
}

func (v Visit) Step(i int, s *Step) Action {
	if v.OnStep == nil {
		return Into
	}
	return v.OnStep(i, s)
}

func (v Visit) Branch(s *Step, b Branch, round int) bool {
	return round == 0 && (v.OnBranch == nil || v.OnBranch(s, b))
}

func (v Visit) EndBranch(s *Step, b Branch) {
	if v.OnEndBranch != nil {
		v.OnEndBranch(s, b)
	}
}

func (v Visit) Leave(s *Step) {
	if v.OnLeave != nil {
		v.OnLeave(s)
	}
}
