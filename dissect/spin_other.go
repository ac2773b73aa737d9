//go:build !amd64

package dissect

import "runtime"

// spinPause yields where no pause instruction is written for the
// architecture (see spin_amd64.s).
func spinPause() { runtime.Gosched() }
