package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect/dissecttest/pcapedit"
)

// Capture truth (issue 11): the sample capture cut by a snap length,
// split into IP fragments, or with a record longer than its packet, reads
// as the capture truly is: nothing is blamed on the game traffic for
// bytes the capture lacks.

func parseSample(t *testing.T) *pcapedit.File {
	t.Helper()
	return parseCapture(t, samplePcap)
}

// parseCapture reads a capture for pcapedit.
func parseCapture(t *testing.T, path string) *pcapedit.File {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := pcapedit.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func writeEdited(t *testing.T, name string, f *pcapedit.File) string {
	t.Helper()
	path := filepath.Join(tempDir(t), name+".pcap")
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// editedSample is an anomalyCase capture: the sample, edited.
func editedSample(name string, edit func(t *testing.T, f *pcapedit.File) *pcapedit.File) func(t *testing.T) (string, []string) {
	return func(t *testing.T) (string, []string) {
		return writeEdited(t, name, edit(t, parseSample(t))), nil
	}
}

func snapSample(n int) func(t *testing.T, f *pcapedit.File) *pcapedit.File {
	return func(_ *testing.T, f *pcapedit.File) *pcapedit.File { return pcapedit.Snap(f, n) }
}

// dropFragment splits the sample's datagrams into IPv4 fragments of 100
// bytes and leaves out fragment frag of split datagram dg.
func dropFragment(dg, frag int) func(t *testing.T, f *pcapedit.File) *pcapedit.File {
	return func(t *testing.T, f *pcapedit.File) *pcapedit.File {
		fr, err := pcapedit.FragmentIPv4(f, 100, nil, func(d, k int) bool { return d == dg && k == frag })
		if err != nil {
			t.Fatal(err)
		}
		return fr.File
	}
}

type jsonLine struct {
	Frame      int             `json:"frame"`
	Kind       string          `json:"kind"`
	Src        string          `json:"src"`
	Dst        string          `json:"dst"`
	Len        int             `json:"len"`
	Uncaptured int             `json:"uncaptured_msgs"`
	Truncated  bool            `json:"truncated"`
	Missing    int             `json:"truncated_bytes"`
	Messages   json.RawMessage `json:"messages"`
	GameSpy    json.RawMessage `json:"gamespy"`
	Cut        json.RawMessage `json:"cut"`
	Anomalies  []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Frame    int    `json:"frame"`
	} `json:"anomalies"`
}

func readJSONLines(t *testing.T, path string) (dgs []jsonLine, end []jsonLine) {
	t.Helper()
	code, out, errs := runCLI(t, nil, "read", "-F", "json", path)
	if code != exitOK || errs != "" {
		t.Fatalf("read: code %d, %s", code, errs)
	}
	for l := range strings.Lines(out) {
		var j jsonLine
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if j.Kind == "summary" {
			end = append(end, j)
		} else {
			dgs = append(dgs, j)
		}
	}
	return dgs, end
}

func flowStats(t *testing.T, path string) string {
	t.Helper()
	code, out, errs := runCLI(t, nil, "stats", "-F", "json", path)
	if code != exitOK {
		t.Fatalf("stats: code %d, %s", code, errs)
	}
	var doc struct {
		Flows json.RawMessage `json:"flows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return string(doc.Flows)
}

// A capture cut by its snap length: only notes, a truncated note per cut
// datagram with the right count, the whole messages as in the full read,
// --fail-on warn passes.
func TestSnaplenCutSample(t *testing.T) {
	full := parseSample(t)
	fullDgs, fullEnd := readJSONLines(t, samplePcap)
	for _, snap := range []int{44, 45, 47, 60, 80, 120, 200, 400} {
		t.Run(strings.Repeat("0", 3-len(itoa(snap)))+itoa(snap), func(t *testing.T) {
			path := writeEdited(t, "cut", pcapedit.Snap(full, snap))
			dgs, end := readJSONLines(t, path)
			if len(dgs) != len(fullDgs) || len(end) != len(fullEnd) {
				t.Fatalf("%d datagrams, %d end lines; the full capture has %d, %d", len(dgs), len(end), len(fullDgs), len(fullEnd))
			}
			cut := 0
			for i, d := range dgs {
				f := fullDgs[i]
				wantMissing := max(f.Len-(snap-42), 0) // Ethernet, IPv4, UDP headers
				if d.Missing != wantMissing || d.Truncated != (wantMissing > 0) {
					t.Errorf("frame %d: truncated %v, %d bytes missing; want %d", d.Frame, d.Truncated, d.Missing, wantMissing)
				}
				notes := 0
				for _, a := range d.Anomalies {
					switch {
					case a.Code == "truncated":
						notes++
						if !strings.Contains(a.Message, " "+itoa(wantMissing)+" missing") {
							t.Errorf("frame %d: %s", d.Frame, a.Message)
						}
					case a.Severity != "note":
						t.Errorf("frame %d: %s %s: %s", d.Frame, a.Severity, a.Code, a.Message)
					}
				}
				if notes != min(wantMissing, 1) {
					t.Errorf("frame %d: %d truncated notes", d.Frame, notes)
				}
				if wantMissing > 0 {
					cut++
				}
				checkWholeMessages(t, d, f)
				for _, a := range d.Anomalies {
					if a.Code != "truncated" && !slices.ContainsFunc(f.Anomalies, func(b struct {
						Code     string `json:"code"`
						Severity string `json:"severity"`
						Message  string `json:"message"`
						Frame    int    `json:"frame"`
					}) bool {
						return b.Code == a.Code
					}) {
						t.Errorf("frame %d: %s not in the full read", d.Frame, a.Code)
					}
				}
			}
			for _, e := range end {
				for _, a := range e.Anomalies {
					t.Errorf("end: %s %s", a.Code, a.Message)
				}
			}
			if code, _, errs := runCLI(t, nil, "read", "--fail-on", "warn", path); code != exitOK {
				t.Errorf("read --fail-on warn: exit %d %s", code, errs)
			}
			t.Logf("%d datagrams cut", cut)
		})
	}
}

// checkWholeMessages compares the messages of a cut datagram with the same
// messages of the full read: the delivery marks may differ (a cut message
// is not tracked), the decoded content may not.
func checkWholeMessages(t *testing.T, d, f jsonLine) {
	t.Helper()
	var got, want []map[string]any
	if d.Kind != "game" {
		return
	}
	if err := json.Unmarshal(d.Messages, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(f.Messages, &want); err != nil {
		t.Fatal(err)
	}
	if len(got) > len(want) {
		t.Fatalf("frame %d: %d messages, the full read has %d", d.Frame, len(got), len(want))
	}
	for i := range got {
		for _, m := range []map[string]any{got[i], want[i]} {
			for _, k := range []string{"ack", "acked_frame", "rtt_ms", "retransmit", "retransmit_count", "first_frame", "duplicate", "reassembled"} {
				delete(m, k)
			}
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("frame %d message %d: %v\nfull read: %v", d.Frame, i, got[i], want[i])
		}
	}
	n := len(got) + d.Uncaptured
	if d.Cut != nil {
		n++
		checkCutMessage(t, d, got, want)
	}
	if n != len(want) {
		t.Errorf("frame %d: %d whole, %d uncaptured, cut %v; the full read has %d messages", d.Frame, len(got), d.Uncaptured, d.Cut != nil, len(want))
	}
}

// checkCutMessage checks "cut", the message the capture cut short: the
// message after the whole ones in the full read, with its header keys
// (whether the cut is in its header or its payload) and some but not all
// of its bytes captured.
func checkCutMessage(t *testing.T, d jsonLine, got, want []map[string]any) {
	t.Helper()
	var cut map[string]any
	if err := json.Unmarshal(d.Cut, &cut); err != nil {
		t.Fatalf("frame %d: cut: %v", d.Frame, err)
	}
	if len(got) >= len(want) {
		t.Fatalf("frame %d: a cut message after all %d of the full read", d.Frame, len(want))
	}
	w := want[len(got)]
	for _, k := range []string{"type", "type_name", "offset"} {
		if cut[k] != w[k] {
			t.Errorf("frame %d: cut %s %v, the full read has %v", d.Frame, k, cut[k], w[k])
		}
	}
	captured, ok := cut["captured"].(float64)
	fullLen, _ := w["len"].(float64)
	if !ok || captured < 1 || fullLen > 0 && captured >= fullLen {
		t.Errorf("frame %d: cut captured %v of a %v-byte message", d.Frame, cut["captured"], w["len"])
	}
}

// Split into IP fragments (shuffled within each datagram), the sample
// decodes as the unfragmented one: the same datagrams, on the frame of
// their last fragment, the same anomalies and flow statistics.
func TestFragmentedSample(t *testing.T) {
	full := parseSample(t)
	v6, err := pcapedit.ToIPv6(full)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		base *pcapedit.File
		frag func(*pcapedit.File, int, *rand.Rand, func(int, int) bool) (*pcapedit.Fragmented, error)
	}{
		{"ipv4", full, pcapedit.FragmentIPv4},
		{"ipv6", v6, pcapedit.FragmentIPv6},
	} {
		for _, size := range []int{64, 200} {
			t.Run(tc.name+"/"+itoa(size), func(t *testing.T) {
				basePath := writeEdited(t, "base", tc.base)
				want, wantEnd := readJSONLines(t, basePath)
				fr, err := tc.frag(full, size, rand.New(rand.NewPCG(uint64(size), 11)), nil)
				if err != nil {
					t.Fatal(err)
				}
				if fr.Split == 0 {
					t.Fatal("nothing fragmented")
				}
				path := writeEdited(t, "frag", fr.File)
				got, gotEnd := readJSONLines(t, path)
				if len(got) != len(want) || len(gotEnd) != len(wantEnd) {
					t.Fatalf("%d datagrams, %d end lines, want %d, %d", len(got), len(gotEnd), len(want), len(wantEnd))
				}
				for i := range got {
					g, w := got[i], want[i]
					if g.Frame != fr.Frame[w.Frame] {
						t.Errorf("datagram %d on frame %d, want %d", i, g.Frame, fr.Frame[w.Frame])
					}
					g.Frame, w.Frame = 0, 0
					for k := range g.Anomalies {
						g.Anomalies[k].Message = ""
					}
					for k := range w.Anomalies {
						w.Anomalies[k].Message = ""
					}
					if !reflect.DeepEqual(g.Anomalies, w.Anomalies) || string(g.GameSpy) != string(w.GameSpy) || g.Src != w.Src {
						t.Errorf("datagram %d differs:\n%+v\n%+v", i, g, w)
					}
				}
				if g, w := strings.ReplaceAll(flowStats(t, path), jsonText(path), samplePcap), flowStats(t, samplePcap); tc.name == "ipv4" && g != w {
					t.Errorf("flow statistics differ:\n%s\n%s", g, w)
				}
			})
		}
	}
}

// fragmenters split the sample into IPv4 or IPv6 fragments.
var fragmenters = []struct {
	name string
	frag func(*pcapedit.File, int, *rand.Rand, func(int, int) bool) (*pcapedit.Fragmented, error)
}{
	{"ipv4", pcapedit.FragmentIPv4},
	{"ipv6", pcapedit.FragmentIPv6},
}

// One fragment lost, IPv4 or IPv6: one ip-fragment-incomplete note,
// nothing about the game traffic that follows; --fail-on warn passes.
// Without fragment 0 the datagram's ports are unknown: the flows between
// its hosts may have lost messages there (ACKs for them are "cut", their
// reassemblies end quietly, the checksum handshake forgets its position),
// and the note is on the datagram where the loss became known, after the
// frames of the lost one.
func TestLostFragmentSample(t *testing.T) {
	f := parseSample(t)
	for _, fg := range fragmenters {
		whole, err := fg.frag(f, 100, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for dg := range whole.Split {
			for _, frag := range []int{0, 1, 2} {
				t.Run(fg.name+"/"+itoa(dg)+"/"+itoa(frag), func(t *testing.T) {
					fr, err := fg.frag(f, 100, nil, func(d, k int) bool { return d == dg && k == frag })
					if err != nil {
						t.Fatal(err)
					}
					path := writeEdited(t, "lost", fr.File)
					dgs, end := readJSONLines(t, path)
					notes := checkLostNotes(t, dgs, end)
					if len(notes) != 1 {
						t.Fatalf("%d ip-fragment-incomplete notes, want 1", len(notes))
					}
					if n := notes[0]; frag == 0 && (n.end || n.frame <= n.last) {
						t.Errorf("note at the end %v, on frame %d; want it on a datagram after frame %d: %s", n.end, n.frame, n.last, n.msg)
					}
					if code, _, errs := runCLI(t, nil, "read", "--fail-on", "warn", path); code != exitOK {
						t.Errorf("read --fail-on warn: exit %d %s", code, errs)
					}
				})
			}
		}
	}
}

type lostNote struct {
	frame, last int // the frame the note is on; the last frame of the lost datagram
	end         bool
	msg         string
}

// checkLostNotes reports every anomaly at warn or above, and every
// ack-unknown, in a read of a capture lacking fragments, and returns its
// ip-fragment-incomplete notes.
func checkLostNotes(t *testing.T, dgs, end []jsonLine) []lostNote {
	t.Helper()
	var notes []lostNote
	for i, l := range append(dgs, end...) {
		for _, a := range l.Anomalies {
			switch {
			case a.Code == "ip-fragment-incomplete":
				n := lostNote{frame: l.Frame, end: i >= len(dgs), msg: a.Message}
				if _, r, ok := strings.Cut(a.Message, "(frames "); ok {
					r, _, _ = strings.Cut(r, ")")
					_, r, _ = strings.Cut(r, "-")
					n.last, _ = strconv.Atoi(r)
				}
				if n.last == 0 {
					t.Errorf("note names no frames: %s", a.Message)
				}
				notes = append(notes, n)
			case a.Code == "truncated":
			case a.Severity != "note" || a.Code == "ack-unknown":
				t.Errorf("frame %d: %s %s: %s", l.Frame, a.Severity, a.Code, a.Message)
			}
		}
	}
	return notes
}

// Fragment 0 lost, the loss found only later: after 30 s of capture time
// (an unrelated frame passes the timeout before the game traffic resumes:
// the note is on the next datagram, in capture order), or at the end of
// the capture (the capture ends with the lost datagram's fragments: an end
// note). Either way nothing about the game traffic follows.
func TestLostFirstFragmentLate(t *testing.T) {
	f := parseSample(t)
	for _, fg := range fragmenters {
		whole, err := fg.frag(f, 100, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The original frame of each split datagram.
		var split []int
		for i := 1; i < len(whole.Frame); i++ {
			if whole.Frame[i]-whole.Frame[i-1] > 1 {
				split = append(split, i)
			}
		}
		if len(split) != whole.Split {
			t.Fatalf("%d split datagrams found, want %d", len(split), whole.Split)
		}
		for dg := range whole.Split {
			fr, err := fg.frag(f, 100, nil, func(d, k int) bool { return d == dg && k == 0 })
			if err != nil {
				t.Fatal(err)
			}
			last := fr.Frame[split[dg]] // the lost datagram's last fragment
			t.Run(fg.name+"/timeout/"+itoa(dg), func(t *testing.T) {
				out := &pcapedit.File{Header: fr.Header}
				out.Records = append(out.Records, fr.Records[:last]...)
				gap := out.Records[last-1]
				gap.Sec += 31
				gap.Data = append(slices.Clone(gap.Data[:12]), 0x08, 0x06) // ARP, not decoded
				gap.Data = append(gap.Data, make([]byte, 28)...)
				gap.Orig = uint32(len(gap.Data))
				out.Records = append(out.Records, gap)
				for _, r := range fr.Records[last:] {
					r.Sec += 32
					out.Records = append(out.Records, r)
				}
				dgs, end := readJSONLines(t, writeEdited(t, "timeout", out))
				notes := checkLostNotes(t, dgs, end)
				if len(notes) != 1 {
					t.Fatalf("%d ip-fragment-incomplete notes, want 1", len(notes))
				}
				next := 0 // the first datagram after the ARP frame
				for _, l := range dgs {
					if l.Frame > last+1 {
						next = l.Frame
						break
					}
				}
				if n := notes[0]; n.end || n.frame != next || n.last != last || !strings.Contains(n.msg, "after 30s") {
					t.Errorf("note at the end %v, on frame %d, want %d (frames up to %d): %s", n.end, n.frame, next, last, n.msg)
				}
			})
			t.Run(fg.name+"/end/"+itoa(dg), func(t *testing.T) {
				out := &pcapedit.File{Header: fr.Header, Records: fr.Records[:last]}
				path := writeEdited(t, "end", out)
				dgs, end := readJSONLines(t, path)
				notes := checkLostNotes(t, dgs, end)
				if len(notes) != 1 {
					t.Fatalf("%d ip-fragment-incomplete notes, want 1", len(notes))
				}
				if n := notes[0]; !n.end || n.last != last || !strings.Contains(n.msg, "at the end of the capture") {
					t.Errorf("note at the end %v (frames up to %d): %s", n.end, n.last, n.msg)
				}
				if code, _, errs := runCLI(t, nil, "read", "--fail-on", "warn", path); code != exitOK {
					t.Errorf("read --fail-on warn: exit %d %s", code, errs)
				}
			})
		}
	}
}

// A record longer than its packet mid-file: every frame read, one note.
func TestCaplenExceedsLenSample(t *testing.T) {
	f := parseSample(t)
	want, _ := readJSONLines(t, samplePcap)
	for _, rec := range []int{0, 11, len(f.Records) - 1} {
		path := writeEdited(t, "over", pcapedit.LenBelowCaptured(f, rec, 10))
		got, _ := readJSONLines(t, path)
		if len(got) != len(want) {
			t.Fatalf("record %d: %d datagrams, want %d", rec, len(got), len(want))
		}
		notes := 0
		for _, l := range got {
			for _, a := range l.Anomalies {
				if a.Code == "caplen-exceeds-len" {
					notes++
					if l.Frame != rec+1 {
						t.Errorf("note on frame %d, want %d", l.Frame, rec+1)
					}
				}
			}
		}
		if notes != 1 {
			t.Errorf("record %d: %d caplen-exceeds-len notes", rec, notes)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
