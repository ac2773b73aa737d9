//go:build race

package record

// raceEnabled: the race detector is on, and it allocates on its own, so
// allocation counts mean nothing.
const raceEnabled = true
