package dissect

import "time"

// CrowdedAfter makes Auto's pipeline find itself short of cores at every
// check, made every `every` batches, so that it switches at the fifth (the
// first sets the mark): the process seems to get no CPU at all. calls returns the checks made since it was last called;
// restore undoes it.
func CrowdedAfter(every int) (calls func() int, restore func()) {
	oldProbe, oldClock, oldEvery := cpuProbe, wallClock, coreCheckEvery
	n := 0
	cpuProbe = func() (time.Duration, bool) { n++; return 0, true }
	// A clock that moves 1 ms between checks, whatever the system clock's
	// resolution (Windows' may not move between two checks).
	clock := time.Unix(1e9, 0)
	wallClock = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	coreCheckEvery = every
	return func() int { c := n; n = 0; return c }, func() { cpuProbe, wallClock, coreCheckEvery = oldProbe, oldClock, oldEvery }
}

// HelpersFor is helpersFor: the helper goroutines for SessionOptions.Workers
// on a machine with the given cores.
var HelpersFor = helpersFor
