package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bcdump/bcdump/transport"
)

// defaultFlowMemory is --flow-memory's default as the flag shows it.
var defaultFlowMemory = fmt.Sprintf("%dMiB", transport.DefaultMaxFlowBytes>>20)

// memoryHeadroom is the memory allowed besides the flows' state (buffers,
// held events, what a report collects): the Go runtime's soft memory limit
// is --flow-memory plus this, so the garbage collector's usual headroom
// (the heap may grow to twice what is live) does not double the flows'
// bound. 144 MiB + 112 MiB keeps a capture of a million flows under 300 MB
// of RSS.
const memoryHeadroom = 112 << 20

// limitMemory sets the soft memory limit (debug.SetMemoryLimit); main sets
// it unless GOMEMLIMIT is given. Tests leave it nil: their process runs
// many commands.
var limitMemory func(int64)

// parseByteSize reads a size like 512MiB, 2GiB, 300MB, 64M or 1000000
// (bytes). K, M and G are taken as binary (KiB, MiB, GiB), as are KB, MB
// and GB: the bound is approximate either way.
func parseByteSize(s string) (int, error) {
	t := strings.TrimSpace(s)
	num := strings.TrimRightFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToUpper(strings.TrimSpace(t[len(num):]))
	shift := 0
	switch strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I") {
	case "":
	case "K":
		shift = 10
	case "M":
		shift = 20
	case "G":
		shift = 30
	default:
		return 0, fmt.Errorf("%q: unknown unit %q; want a size like 512MiB or 2GiB", s, t[len(num):])
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q: want a size like 512MiB or 2GiB", s)
	}
	if n > (1<<62)>>shift {
		return 0, fmt.Errorf("%q: too large", s)
	}
	return int(n << shift), nil
}
