package diff

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/report/record"
)

// synthTrace writes a trace of one client flow of n reliable Data
// messages, each ACKed by the server, to a file in dir. The content
// repeats every 50 messages (as a game's periodic updates do), so the
// alignment meets many equal candidates. The variant changes every 997th
// message, drops every 1499th and adds one after every 2003rd.
func synthTrace(t testing.TB, dir string, n int, variant bool) string {
	t.Helper()
	name := filepath.Join(dir, fmt.Sprintf("synth-%d-%v.jsonl", n, variant))
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	t0 := time.Date(2026, 1, 2, 20, 0, 0, 0, time.UTC)
	frame, seq := 1, 0
	msg := func(v int) {
		at := t0.Add(time.Duration(frame) * time.Millisecond).Format(time.RFC3339Nano)
		fmt.Fprintf(w, `{"frame":%d,"time":%q,"src":"10.0.0.2:50000","dst":"10.0.0.1:22101","dir":"c2s","kind":"game","messages":[{"type":50,"type_name":"Data","reliable":true,"ordered":true,"seq":%d,"opcode":44,"opcode_name":"Chat","fields":{"n":%d,"text":"update"}}]}`+"\n", frame, at, seq&0xffff, v)
		frame++
		fmt.Fprintf(w, `{"frame":%d,"time":%q,"src":"10.0.0.1:22101","dst":"10.0.0.2:50000","dir":"s2c","kind":"game","messages":[{"type":1,"type_name":"ACK","seq":%d,"ack":"matched"}]}`+"\n", frame, at, seq&0xffff)
		frame++
		seq++
	}
	for i := range n {
		v := i % 50
		if variant {
			switch {
			case i%1499 == 1498:
				continue
			case i%997 == 996:
				v += 1000
			}
		}
		msg(v)
		if variant && i%2003 == 2002 {
			msg(5000)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return name
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// diffPeak diffs the synthetic trace of n messages with its variant under
// small stores and a small window, and returns the largest live heap seen
// at the checkpoints (both sides loaded, compared, both outputs written)
// above the heap before it started, with the summary line.
func diffPeak(t *testing.T, dir string, n int) (uint64, string) {
	oldName, newName := synthTrace(t, dir, n, false), synthTrace(t, dir, n, true)
	opt := Options{Context: 3, Retransmits: true, SpillBytes: 32 << 10, Window: 256}
	base := liveHeap()
	var peak uint64
	check := func() {
		if h := liveHeap(); h > base && h-base > peak {
			peak = h - base
		}
	}
	load := func(name string) *Conversation {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		c, err := LoadTrace(name, f, nil, &opt)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	old := load(oldName)
	defer old.Close()
	check()
	nw := load(newName)
	defer nw.Close()
	check()
	res := Compare(old, nw, opt)
	defer res.Close()
	check()
	if err := res.WriteText(io.Discard); err != nil {
		t.Fatal(err)
	}
	check()
	if err := res.WriteJSON(io.Discard); err != nil {
		t.Fatal(err)
	}
	check()
	if !old.Spilled() || !old.RecordsSpilled() {
		t.Fatalf("%d messages did not spill past 32 KiB stores", n)
	}
	return peak, res.SummaryLine()
}

// What diff holds in memory does not grow with the number of messages:
// ten times the messages (and the differences) take no more live heap,
// beyond the fixed stores, windows and interned names. (The design before
// held about 130 bytes a message pair by its own figure: some 2.3 MB more
// for the larger input, not measured here.)
func TestDiffMemoryBounded(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 2000
	}
	dir := tempDir(t)
	small, sumSmall := diffPeak(t, dir, n)
	large, sumLarge := diffPeak(t, dir, 10*n)
	t.Logf("%d messages: peak %d bytes (%s)", n, small, sumSmall)
	t.Logf("%d messages: peak %d bytes (%s)", 10*n, large, sumLarge)
	if strings.Contains(sumSmall, "no differences") || strings.Contains(sumLarge, "no differences") {
		t.Fatal("the variant is no different")
	}
	const slack = 1 << 20
	if large > small+slack {
		t.Errorf("live heap grew with the input: %d bytes for %d messages, %d for %d", small, n, large, 10*n)
	}
}

// The windowed alignment finds the same differences as one window over the
// whole flow where the sides never drift apart by more than a window: the
// synthetic variant's differences are local.
func TestWindowedEqualsWhole(t *testing.T) {
	dir := tempDir(t)
	oldName, newName := synthTrace(t, dir, 4000, false), synthTrace(t, dir, 4000, true)
	render := func(window int) string {
		opt := Options{Context: 2, Retransmits: true, Window: window}
		load := func(name string) *Conversation {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			c, err := LoadJSON(name, bytes.NewReader(b), &opt)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		}
		res := Compare(load(oldName), load(newName), opt)
		defer res.Close()
		var text, js bytes.Buffer
		if err := res.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		return text.String() + js.String()
	}
	whole := render(1 << 20)
	if !strings.Contains(whole, "differences (") {
		t.Fatalf("no differences found:\n%.2000s", whole)
	}
	for _, w := range []int{16, 64, 1000} {
		if got := render(w); got != whole {
			t.Errorf("window %d differs from one window:\n%.3000s\nwant\n%.3000s", w, got, whole)
		}
	}
}

// Sides that drift further apart than a window (a run of added messages
// longer than it) are told apart from sides that merely differ: the
// summary counts the windows that had nothing in common.
func TestWindowDrift(t *testing.T) {
	opt := Options{Window: 16}
	var a, b bytes.Buffer
	t0 := time.Date(2026, 1, 2, 20, 0, 0, 0, time.UTC)
	line := func(w io.Writer, frame, v int) {
		at := t0.Add(time.Duration(frame) * time.Millisecond).Format(time.RFC3339Nano)
		fmt.Fprintf(w, `{"frame":%d,"time":%q,"src":"10.0.0.2:50000","dst":"10.0.0.1:22101","dir":"c2s","kind":"game","messages":[{"type":50,"type_name":"Data","reliable":false,"opcode":44,"opcode_name":"Chat","fields":{"n":%d}}]}`+"\n", frame, at, v)
	}
	for i := range 100 {
		line(&a, i+1, i)
	}
	for i := range 40 {
		line(&b, i+1, 1000+i) // 40 new messages first: more than a window
	}
	for i := range 100 {
		line(&b, i+41, i)
	}
	old, err := LoadJSON("a", &a, &opt)
	if err != nil {
		t.Fatal(err)
	}
	nw, err := LoadJSON("b", &b, &opt)
	if err != nil {
		t.Fatal(err)
	}
	res := Compare(old, nw, opt)
	defer res.Close()
	if res.Summary.Unaligned == 0 || !strings.Contains(res.SummaryLine(), "alignment window") {
		t.Errorf("drift not reported: %+v %s", res.Summary, res.SummaryLine())
	}
	if res.Summary.OldMessages != 100 || res.Summary.NewMessages != 140 || res.Equal() {
		t.Errorf("summary %+v", res.Summary)
	}
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"unaligned_windows"`) {
		t.Errorf("JSON lacks unaligned_windows (%v)", err)
	}
	// A window large enough aligns them: 40 added, the rest equal.
	opt.Window = 128
	whole := Compare(old, nw, opt)
	defer whole.Close()
	if whole.Summary.Unaligned != 0 || whole.Summary.Added != 40 || whole.Summary.Differences != 40 {
		t.Errorf("with a large window: %+v", whole.Summary)
	}
}

// Past Options.MaxFlows a side's further flows are one merged flow, in
// capture order: it is compared like any flow (equal to itself, a changed
// message found), and both outputs say what was merged.
func TestMergedFlows(t *testing.T) {
	opt := Options{MaxFlows: 1}
	loadOpt := func(name string, b []byte) *Conversation {
		t.Helper()
		c, err := LoadJSON(name, bytes.NewReader(traceOf(t, b)), &opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a := loadOpt("a", twoClients(t, "hello", false))
	if len(a.Flows) != 2 || a.Flows[1].Role != RoleMerged || a.Merged == 0 || a.Flows[1].Merged != a.Merged {
		t.Fatalf("flows %d, merged %d", len(a.Flows), a.Merged)
	}
	same := Compare(a, a, opt)
	defer same.Close()
	if !same.Equal() {
		t.Errorf("the merged flow differs from itself: %+v", same.Summary)
	}
	b := loadOpt("b", twoClients(t, "howdy", false))
	res := Compare(a, b, opt)
	defer res.Close()
	if res.Equal() || res.Flows[1].Count[Changed] == 0 || res.Flows[0].Differences() != 0 {
		t.Errorf("the changed chat of the second client not found in the merged flow: %+v", res.Summary)
	}
	var text, js bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"flow 2 (merged: the flows past the first 1 of a side)", "compared as one merged flow"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{`"merged_datagrams": `, `"role": "merged"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %q", want)
		}
	}
}

// The resend and ACK state of all flows stays within its bound: past it,
// the least recently active flows' state is dropped, and the messages
// filed stay as they were.
func TestDeliveriesBounded(t *testing.T) {
	dir := tempDir(t)
	name := synthTrace(t, dir, 3000, false)
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder("x", "json", &Options{})
	b.maxHeld = 100 * deliveryBytes
	peak := 0
	err = readTrace(bytes.NewReader(data), nil, func(r *record.Datagram) error {
		err := b.add(r)
		peak = max(peak, b.held)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	c := b.finish()
	defer c.Close()
	if peak > 100 || c.DeliveriesDropped == 0 {
		t.Errorf("peak %d deliveries held, %d drops", peak, c.DeliveriesDropped)
	}
	if c.Messages() != 3000 {
		t.Errorf("%d messages", c.Messages())
	}
}

// TestSpillFailureStops: when the temporary file cannot be created, the
// diff stops with that error instead of holding past its bound.
func TestSpillFailureStops(t *testing.T) {
	name := synthTrace(t, tempDir(t), 2000, false)
	gone := filepath.Join(tempDir(t), "no-such-dir")
	for _, v := range []string{"TMPDIR", "TMP", "TEMP"} {
		t.Setenv(v, gone)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opt := Options{SpillBytes: 1 << 10}
	c, err := LoadTrace(name, f, nil, &opt)
	if err == nil {
		c.Close()
		t.Fatal("loading past the spill budget without a temporary file did not fail")
	}
	if !strings.Contains(err.Error(), "temporary file") {
		t.Errorf("error %q does not name the temporary file", err)
	}
}
