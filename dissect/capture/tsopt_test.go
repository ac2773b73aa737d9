package capture

import (
	"encoding/binary"
	"math"
	"testing"
	"time"
)

// The interface options that set the time of a pcapng packet: if_tsresol
// (0 is 10^-0, whole seconds, not the microseconds of an absent option)
// and if_tsoffset (signed seconds, down to -2^63), on the fast path and on
// pcapgo's.
func TestPcapngTimestampOptions(t *testing.T) {
	le := binary.LittleEndian
	good := eth(0x0800, ipUDP(t, cli4, srv4, bcPl))
	offset := func(sec int64) []byte { return le.AppendUint64(nil, uint64(sec)) }
	tests := []struct {
		name string
		opts func(n *ngb) [][]byte
		ts   uint64
		want time.Time
	}{
		{"no options: microseconds", func(n *ngb) [][]byte { return nil }, 1_700_000_000_250_000,
			time.Unix(1_700_000_000, 250_000_000)},
		{"tsresol 0: whole seconds", func(n *ngb) [][]byte { return [][]byte{n.opt(9, []byte{0})} }, 1_700_000_000,
			time.Unix(1_700_000_000, 0)},
		{"tsresol 9: nanoseconds", func(n *ngb) [][]byte { return [][]byte{n.opt(9, []byte{9})} }, 1_700_000_000_000_000_007,
			time.Unix(1_700_000_000, 7)},
		{"tsresol 2^-0", func(n *ngb) [][]byte { return [][]byte{n.opt(9, []byte{0x80})} }, 42, time.Unix(42, 0)},
		{"tsoffset -60", func(n *ngb) [][]byte { return [][]byte{n.opt(14, offset(-60))} }, 100_000_000,
			time.Unix(40, 0)},
		{"tsoffset -2^63", func(n *ngb) [][]byte { return [][]byte{n.opt(14, offset(math.MinInt64))} }, 0,
			time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"tsoffset 2^63-1", func(n *ngb) [][]byte { return [][]byte{n.opt(14, offset(math.MaxInt64))} }, 0,
			time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
		{"tsoffset to the last second", func(n *ngb) [][]byte {
			return [][]byte{n.opt(9, []byte{0}), n.opt(14, offset(253402300799-5))}
		}, 5, time.Unix(253402300799, 0)},
		{"tsresol 0 and tsoffset to year 10000", func(n *ngb) [][]byte {
			return [][]byte{n.opt(9, []byte{0}), n.opt(14, offset(253402300799-5))}
		}, 6, time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
	}
	for _, tc := range tests {
		for _, hardened := range []bool{false, true} {
			n := &ngb{o: le}
			n.shb().idb(1, 0, tc.opts(n)...).epb(0, tc.ts, good, 0)
			r := openBytes(t, n.b, Options{})
			r.hardened = hardened
			var p Packet
			if err := r.Next(&p); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !p.Time.Equal(tc.want) {
				t.Errorf("%s (hardened %v): time %d.%09d, want %d.%09d", tc.name, hardened,
					p.Time.Unix(), p.Time.Nanosecond(), tc.want.Unix(), tc.want.Nanosecond())
			}
		}
	}
}

func TestSaturateEnds(t *testing.T) {
	if earliestTime.Unix() != earliestUnix || latestTime.Unix() != latestUnix {
		t.Errorf("ends %d %d, constants %d %d", earliestTime.Unix(), latestTime.Unix(), earliestUnix, latestUnix)
	}
}
