package transport

import (
	"strings"
	"testing"
	"time"
)

func TestReassemblyTimeout(t *testing.T) {
	_, events := trkRun(t, trkScript{cfg: Config{ReassemblyTimeout: 5 * time.Second}, steps: []trkStep{
		{at: 0, dg: trkDG(2, trkFrag(3, 1, 0, []byte("b"))), want: "new"},
		{at: 3, dg: trkDG(2, trkData(4, "x")), want: "new"},
		{at: 6, dg: trkDG(2, trkData(5, "y")), want: "new"}, // the sweep at 6 s expires seq 3
		{at: 7, dg: trkDG(2, trkFrag(3, 0, 2, []byte("a"))), want: "new"},
	}, events: []string{"fragment-incomplete@1.0"}})
	want := "reassembly of c2s seq 3 incomplete after 5s (reassembly timeout): fragment 0 (with the total) missing, have 1 (1 bytes)"
	if events[0].Message() != want || !events[0].Time.Equal(trkEpoch) {
		t.Errorf("got %q at %v\nwant %q", events[0].Message(), events[0].Time, want)
	}
}

func TestReassemblyTexts(t *testing.T) {
	p20, p90 := trkPayload(0x21, 20), trkPayload(0x23, 90)
	tr := NewTracker(Config{MaxOpenReassemblies: 2, MaxReassemblyBytes: 100})
	var dg Datagram
	info := make([]MsgInfo, 4)
	var msgs []string
	for i, b := range [][]byte{
		trkDG(2, trkFrag(1, 0, 2, p20)),
		trkDG(2, trkFrag(2, 0, 3, p20)),
		trkDG(2, trkFrag(3, 2, 0, p20)), // drops seq 1
		trkDG(2, trkFrag(4, 0, 2, p90)), // drops seq 2 (too many), then seq 3 (too many bytes)
	} {
		Decode(b, &dg)
		for _, a := range tr.Track(Packet{Frame: i + 1, Time: trkEpoch, Client: trkClients[0], Server: trkServers[0]}, &dg, info, nil) {
			msgs = append(msgs, a.Message())
		}
	}
	for _, e := range tr.Finish() {
		msgs = append(msgs, e.Message())
	}
	want := []string{
		"dropped the reassembly of c2s seq 1 (first fragment frame 1, missing fragments 1 of 2, have 0 (20 bytes)) to open one more than 2 reassemblies",
		"dropped the reassembly of c2s seq 2 (first fragment frame 2, missing fragments 1-2 of 3, have 0 (20 bytes)) to open one more than 2 reassemblies",
		"dropped the reassembly of c2s seq 3 (first fragment frame 3, fragment 0 (with the total) missing, have 2 (20 bytes)) to buffer more than 100 bytes",
		"reassembly of c2s seq 4 incomplete at the end of the capture: missing fragments 1 of 2, have 0 (90 bytes)",
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}

// The same seq in both directions is two reassemblies; 255 fragments (the
// most a u8 total allows) reassemble in any order.
func TestReassemblyDirectionsAndMaximum(t *testing.T) {
	steps := []trkStep{
		{at: 0, dg: trkDG(2, trkFrag(9, 0, 2, []byte("c0"))), want: "new"},
		{at: 0, dir: S2C, dg: trkDG(1, trkFrag(9, 1, 0, []byte("s1"))), want: "new"},
		{at: 0, dir: S2C, dg: trkDG(1, trkFrag(9, 0, 2, []byte("s0"))), want: "new,asm2:4"},
		{at: 0, dg: trkDG(2, trkFrag(9, 1, 0, []byte("c1"))), want: "new,asm2:4"},
	}
	for k := 254; k >= 0; k-- {
		want := "new"
		if k == 0 {
			want = "new,asm255:255"
		}
		steps = append(steps, trkStep{at: 1, dg: trkDG(2, trkFrag(10, uint8(k), 255, []byte{byte(k)})), want: want})
	}
	trkRun(t, trkScript{cfg: Config{MaxTrackedFragments: 300}, steps: steps})
}

func TestRanges(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, "none"}, {[]int{4}, "4"}, {[]int{0, 2, 3, 4, 5, 9}, "0, 2-5, 9"}, {[]int{1, 2}, "1-2"},
	} {
		if got := ranges(tc.in); got != tc.want {
			t.Errorf("ranges(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
