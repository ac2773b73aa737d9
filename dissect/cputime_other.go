//go:build !unix

package dissect

import "time"

// processCPU is not known here: Auto keeps the pipeline however busy the
// machine is.
func processCPU() (time.Duration, bool) { return 0, false }
