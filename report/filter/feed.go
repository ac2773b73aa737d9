package filter

import "math"

// Feeding decoded values: instead of scanning a record's JSON, a caller
// that holds the decoded record hands the filter the values at the paths
// its atoms name, each as the JSON would show it, and asks for the result.
// The boolean structure and the atom tests are the ones Match uses, so the
// two agree whenever the values fed are the values the JSON holds:
//
//	f.Reset()
//	f.Int(f.PathID("frame"), 42) // resolve ids once per filter
//	...
//	ok := f.Result()
//
// A path is identified by its id (PathID), so a caller can resolve its
// paths once per filter; an id of -1 (a path no atom names) is accepted by
// every method and does nothing. Array levels are transparent as in Match:
// each element of an array of values is fed at the array's path, each
// object of an array of objects is Present at it, and an array itself is
// not a value (an empty array is absent). JSON null is no value: feed
// nothing.

func (f *Filter) indexPaths() {
	f.ids = map[string]int{}
	for i, a := range f.atoms {
		id, ok := f.ids[a.path]
		if !ok {
			id = len(f.names)
			f.ids[a.path] = id
			f.names = append(f.names, a.path)
			f.byID = append(f.byID, nil)
		}
		f.byID[id] = append(f.byID[id], i)
	}
}

// Paths lists the paths the atoms name; a path's index is its id.
func (f *Filter) Paths() []string { return f.names }

// PathID returns the id of a path an atom names, or -1.
func (f *Filter) PathID(path string) int {
	if id, ok := f.ids[path]; ok {
		return id
	}
	return -1
}

// PathIDBytes is PathID for a path in a buffer (it does not allocate).
func (f *Filter) PathIDBytes(path []byte) int {
	if id, ok := f.ids[string(path)]; ok {
		return id
	}
	return -1
}

// Reset starts a record: no value seen yet.
func (f *Filter) Reset() {
	clear(f.hit)
	clear(f.seen)
}

// Result is whether the expression is true for the values fed since
// Reset.
func (f *Filter) Result() bool { return f.root.eval(f) }

// Present feeds an object at the path (present, no value to compare).
func (f *Filter) Present(id int) {
	if id >= 0 {
		f.present(f.byID[id])
	}
}

// Int feeds an integer.
func (f *Filter) Int(id int, v int64) {
	if id < 0 {
		return
	}
	if v < 0 {
		f.testNumber(f.byID[id], intNumber(true, uint64(-v)))
	} else {
		f.testNumber(f.byID[id], intNumber(false, uint64(v)))
	}
}

// Uint feeds an unsigned integer.
func (f *Filter) Uint(id int, v uint64) {
	if id >= 0 {
		f.testNumber(f.byID[id], intNumber(false, v))
	}
}

// Float feeds a number that the JSON writes with a fraction or an
// exponent, as a JSON parser reads that text (not a float32's float64
// value: "0.1" is 0.1). NaN and infinities are JSON null: no value.
func (f *Filter) Float(id int, v float64) {
	if id < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	f.testNumber(f.byID[id], number{f: v})
}

// Text feeds a string, as the JSON string decodes (not escaped).
func (f *Filter) Text(id int, v []byte) {
	if id >= 0 {
		f.testString(f.byID[id], v)
	}
}

// Bool feeds a boolean.
func (f *Filter) Bool(id int, v bool) {
	if id >= 0 {
		f.testBool(f.byID[id], v)
	}
}

// Atoms is the number of relations in the expression.
func (f *Filter) Atoms() int { return len(f.atoms) }

// AtomState says, for the last record matched or fed, whether atom i's
// path was present (seen) and whether some value there satisfied its
// relation (hit): everything Result depends on. Atoms are numbered in
// the order they appear in the expression. Tests compare feeders with
// Match by it.
func (f *Filter) AtomState(i int) (seen, hit bool) { return f.seen[i], f.hit[i] }
