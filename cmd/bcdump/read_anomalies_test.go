package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/dissect/dissecttest/pcapedit"
	"github.com/bcdump/bcdump/transport/anomaly"
)

var updateAnomalies = flag.Bool("update-anomalies", false, "rewrite testdata/golden/anomalies.table (the anomaly examples of bcdump help anomalies)")

const anomaliesGolden = testdata + "/golden/anomalies.table"

const anomaliesGoldenHeader = `# The anomaly examples of bcdump help anomalies: per code, the capture, the "bcdump read"
# table line and the anomaly's message. Regenerate:
#   go test ./cmd/bcdump -run Anomal -update-anomalies
`

// anomalyCase is one example of bcdump help anomalies: a capture, the anomaly
// it shows and where.
type anomalyCase struct {
	code   anomaly.Code
	source string // golden heading: where the capture comes from
	// capture returns the capture's path and extra read flags.
	capture func(t *testing.T) (path string, flags []string)
	frame   int  // datagram carrying the anomaly, or the one an event is about
	event   bool // reported at the end (summary), not on the datagram
	onFrame int  // occurrences on frame (default 1)
	// generated captures are clean but for the fault: code exactly once
	// (per message for per-message events) and no codes outside also.
	generated bool
	also      []anomaly.Code
}

func (c *anomalyCase) key() string { return c.code.String() + " " + c.source }

// generatedCapture writes dissecttest.Anomaly(code) to a temporary pcap.
func generatedCapture(code anomaly.Code) func(t *testing.T) (string, []string) {
	return func(t *testing.T) (string, []string) {
		s, ok := dissecttest.Anomaly(code)
		if !ok {
			t.Fatalf("dissecttest has no scenario for %s", code)
		}
		return writeSession(t, s, code.String()), nil
	}
}

func writeSession(t *testing.T, s *dissecttest.Session, name string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := s.WritePcap(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tempDir(t), name+".pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// seed001Frame is the frame of the first send of seed 001's stuck message.
const seed001Frame = 10

func seed001Capture(v dissecttest.Seed001Acks) func(t *testing.T) (string, []string) {
	return func(t *testing.T) (string, []string) {
		path, first, _ := writeSeed001(t, v)
		if first != seed001Frame {
			t.Fatalf("stuck message first sent in frame %d, the cases say %d", first, seed001Frame)
		}
		return path, nil
	}
}

// realCase finds a capture in testdata/captures (or the bundled sample);
// withManifest adds --manifest with testdata/vanilla-1.1.json.
func realCase(name string, withManifest bool) func(t *testing.T) (string, []string) {
	return func(t *testing.T) (string, []string) {
		path := filepath.Join(testdata, "captures", name)
		if name == "sample.pcap" {
			path = samplePcap
		}
		if !withManifest {
			return path, nil
		}
		return path, []string{"--manifest", filepath.Join(testdata, "vanilla-1.1.json")}
	}
}

// anomalyCases is every anomaly code with the capture bcdump help anomalies quotes
// for it, in the topic's order.
func anomalyCases() []anomalyCase {
	gen := func(code anomaly.Code, frame int, event bool, also ...anomaly.Code) anomalyCase {
		return anomalyCase{code: code, source: fmt.Sprintf("generated: dissecttest.Anomaly(%q)", code),
			capture: generatedCapture(code), frame: frame, event: event, generated: true, also: also}
	}
	seed := func(code anomaly.Code, v dissecttest.Seed001Acks) anomalyCase {
		return anomalyCase{code: code, source: "generated: dissecttest.Seed001(" + v.String() + ")",
			capture: seed001Capture(v), frame: seed001Frame, event: true, generated: true, also: []anomaly.Code{anomaly.Retransmit}}
	}
	captured := func(code anomaly.Code, name string, frame int, manifest ...bool) anomalyCase {
		src := "real: " + name
		withManifest := len(manifest) > 0 && manifest[0]
		if withManifest {
			src += " --manifest vanilla-1.1.json"
		}
		return anomalyCase{code: code, source: fmt.Sprintf("%s frame %d", src, frame),
			capture: realCase(name, withManifest), frame: frame}
	}
	af := dissecttest.AnomalyFrame
	// The stock disconnect datagram's stale ACKs (protocol-facts 5.3).
	ack := captured(anomaly.AckUnknown, "stock-excerpts.pcap", 17)
	ack.onFrame = 2
	// The sample's synthetic round 2 hashes: eight listed, one counting
	// the rest.
	unknown := captured(anomaly.ChecksumFileUnknown, "sample.pcap", 14, true)
	unknown.onFrame = 9
	edited := func(code anomaly.Code, what string, frame int, edit func(*testing.T, *pcapedit.File) *pcapedit.File) anomalyCase {
		return anomalyCase{code: code, source: fmt.Sprintf("edited: sample.pcap %s, frame %d", what, frame),
			capture: editedSample(code.String(), edit), frame: frame}
	}
	return []anomalyCase{
		edited(anomaly.Truncated, "cut to snap length 80", 12, snapSample(80)),
		edited(anomaly.CaplenExceedsLen, "record 12 with its original length 10 below its captured length", 12,
			func(_ *testing.T, f *pcapedit.File) *pcapedit.File { return pcapedit.LenBelowCaptured(f, 11, 10) }),
		edited(anomaly.IPFragmentIncomplete, "in 100-byte IPv4 fragments, fragment 1 of the 3rd split datagram lost", 22, dropFragment(2, 1)),
		gen(anomaly.ShortDatagram, af, false),
		gen(anomaly.BadLength, af, false),
		gen(anomaly.LengthOverrun, af, false),
		gen(anomaly.UnknownTransportType, af, false),
		captured(anomaly.NonStockDisconnect, "openbc-session-2.pcap", 30),
		captured(anomaly.NonStockLength, "openbc-session-2.pcap", 60),
		gen(anomaly.MsgCountMismatch, af, false),
		gen(anomaly.TrailingBytes, af, false),
		captured(anomaly.PayloadMalformed, "openbc-session-3.pcap", 2121),
		captured(anomaly.NonStockTorpedoFire, "openbc-session-3.pcap", 660),
		captured(anomaly.NonStockObjCreate, "openbc-session-3.pcap", 99),
		captured(anomaly.Retransmit, "openbc-session-3.pcap", 2121),
		gen(anomaly.RetransmitDiffers, af+1, false, anomaly.Retransmit),
		captured(anomaly.SeqReuse, "stock-excerpts.pcap", 13),
		captured(anomaly.SeqReuse, "openbc-session-2.pcap", 154),
		ack,
		seed(anomaly.UnackedFragmentRetransmit, dissecttest.Seed001FragmentAcks),
		seed(anomaly.RetransmitUnacked, dissecttest.Seed001AcksLost),
		seed(anomaly.AckMismatch, dissecttest.Seed001AcksWithoutFragFlag),
		gen(anomaly.FragmentIncomplete, af, true),
		gen(anomaly.ReassemblyOverflow, af+8, false),
		gen(anomaly.FragmentBadTotal, af, false),
		gen(anomaly.FragmentUnreliable, af, false),
		captured(anomaly.PeerIDMismatch, "openbc-session-2.pcap", 62),
		gen(anomaly.PeerTimeout, af-1, true),
		gen(anomaly.TrackingLimit, af, true),
		gen(anomaly.ChecksumRoundOrder, af, false),
		gen(anomaly.ChecksumBitBytePlain, af+1, false),
		gen(anomaly.ChecksumMissingComplete, af+1, false),
		captured(anomaly.ChecksumVersion, "openbc-session-2.pcap", 8),
		captured(anomaly.ChecksumDirHash, "openbc-session-2.pcap", 14),
		gen(anomaly.ChecksumTreeMalformed, af, false, anomaly.PayloadMalformed),
		captured(anomaly.ChecksumFileMismatch, "stock-excerpts.pcap", 3, true),
		unknown,
		edited(anomaly.CaptureTime, "record 12 with its microsecond field 0xFFFFFFFF", 12,
			func(_ *testing.T, f *pcapedit.File) *pcapedit.File {
				out := &pcapedit.File{Header: f.Header, Records: append([]pcapedit.Record(nil), f.Records...)}
				out.Records[11].Frac = 0xFFFFFFFF
				return out
			}),
	}
}

// anomalySeen is one anomaly of a read --format json run.
type anomalySeen struct {
	frame           int
	event           bool
	code, sev, text string
}

func readAnomalies(t *testing.T, path string, flags []string) []anomalySeen {
	t.Helper()
	code, out, errs := runCLI(t, nil, append(append([]string{"read", "--format", "json"}, flags...), path)...)
	if code != exitOK || errs != "" {
		t.Fatalf("read --format json: code %d err %q", code, errs)
	}
	var seen []anomalySeen
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l seed001Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		for _, a := range l.Anomalies {
			s := anomalySeen{frame: l.Frame, code: a.Code, sev: a.Severity, text: a.Message}
			if l.Kind == "summary" {
				s.frame, s.event = a.Frame, true
			}
			seen = append(seen, s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return seen
}

// tableLines returns the table lines that show the anomaly: the datagram
// line of frame, or the end lines of code about frame.
func tableLines(t *testing.T, path string, flags []string, c *anomalyCase) []string {
	t.Helper()
	code, out, errs := runCLI(t, nil, append(append([]string{"read"}, flags...), path)...)
	if code != exitOK || errs != "" {
		t.Fatalf("read: code %d err %q", code, errs)
	}
	prefix := fmt.Sprintf("%6d ", c.frame)
	if c.event {
		prefix = fmt.Sprintf("   end %s %s frame %d ", c.code.Severity(), c.code, c.frame)
	}
	var lines []string
	for l := range strings.Lines(out) {
		if strings.HasPrefix(l, prefix) {
			lines = append(lines, strings.TrimSuffix(l, "\n"))
		}
	}
	return lines
}

// TestReadAnomalies shows every anomaly code on the capture the topic
// quotes: the code with its severity on the right frame, as often as
// expected (once per message for per-message events), nothing else on the
// generated captures, and the topic's table line (golden file).
func TestReadAnomalies(t *testing.T) {
	golden := readAnomalyGolden(t)
	var out bytes.Buffer
	out.WriteString(anomaliesGoldenHeader)
	complete := true
	for _, c := range anomalyCases() {
		t.Run(strings.ReplaceAll(c.key(), " ", "_"), func(t *testing.T) {
			var section string
			defer func() {
				if section == "" || t.Failed() {
					complete = false
				}
				out.WriteString(section)
			}()
			path, flags := c.capture(t)
			seen := readAnomalies(t, path, flags)
			var onFrame, total int
			sev := c.code.Severity().String()
			var text string
			for _, s := range seen {
				switch {
				case s.code == c.code.String():
					total++
					if s.sev != sev {
						t.Errorf("%s on frame %d has severity %s, want %s", s.code, s.frame, s.sev, sev)
					}
					if s.frame == c.frame && s.event == c.event {
						if onFrame++; onFrame == 1 {
							text = s.text
						}
					} else if c.generated {
						t.Errorf("%s on frame %d (event %v), want only frame %d (event %v)", s.code, s.frame, s.event, c.frame, c.event)
					}
				case c.generated && !slices.ContainsFunc(c.also, func(a anomaly.Code) bool { return a.String() == s.code }):
					t.Errorf("unexpected %s %s on frame %d: %s", s.sev, s.code, s.frame, s.text)
				}
			}
			if want := max(c.onFrame, 1); onFrame != want {
				t.Errorf("%d %s on frame %d (event %v), want %d", onFrame, c.code, c.frame, c.event, want)
			}
			if c.generated && total != 1 {
				t.Errorf("%d %s in the capture, want 1", total, c.code)
			}
			if c.generated {
				// bcdump stats counts it as often, in the totals.
				code, out, errs := runCLI(t, nil, append(append([]string{"stats", "-F", "json"}, flags...), path)...)
				if code != exitOK {
					t.Fatalf("stats: code %d err %q", code, errs)
				}
				n := 0
				for _, a := range parseStats(t, out).Anomalies {
					if a.Code == c.code.String() {
						n += a.Count
					}
				}
				if n != total {
					t.Errorf("stats counts %d %s, read shows %d", n, c.code, total)
				}
			}
			lines := tableLines(t, path, flags, &c)
			if len(lines) != 1 || !c.event && !strings.Contains(lines[0], " !"+c.code.String()) {
				t.Fatalf("table lines for frame %d: %q, want one showing %s", c.frame, lines, c.code)
			}
			// An end line holds the message already.
			section = fmt.Sprintf("== %s (%s) %s\n%s\n", c.code, sev, c.source, lines[0])
			if !c.event {
				section += "message: " + text + "\n"
			}
			if want, ok := golden[c.key()]; !*updateAnomalies && (!ok || want != section) {
				t.Errorf("anomaly example changed (rerun with -update-anomalies if intended):\n got: %s\nwant: %s", section, want)
			}
		})
	}
	if *updateAnomalies {
		if !complete {
			t.Fatal("not rewriting the golden file: some cases failed or were skipped")
		}
		if err := os.WriteFile(anomaliesGolden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readAnomalyGolden splits the golden file into sections by their
// "== code (severity) source" heading, keyed by code and source.
func readAnomalyGolden(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(anomaliesGolden)
	if err != nil {
		if *updateAnomalies && os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	m := map[string]string{}
	var key string
	for l := range strings.Lines(string(data)) {
		if head, ok := strings.CutPrefix(l, "== "); ok {
			code, rest, _ := strings.Cut(head, " ")
			_, source, _ := strings.Cut(rest, ") ")
			key = code + " " + strings.TrimSuffix(source, "\n")
		}
		m[key] += l
	}
	return m
}

// Every code of the registry has a case, and so has every scenario of
// dissecttest: the registry is the list of what bcdump can raise, and each
// entry is shown raised on a capture.
func TestReadAnomaliesCoverCodes(t *testing.T) {
	cased := map[anomaly.Code]bool{}
	for _, c := range anomalyCases() {
		cased[c.code] = true
	}
	for _, in := range anomaly.All() {
		if !cased[in.Code] {
			t.Errorf("%s: no capture in anomalyCases raises it", in.Name)
		}
	}
	for _, code := range dissecttest.AnomalyCodes() {
		if !cased[code] {
			t.Errorf("dissecttest scenario %s has no case", code)
		}
	}
}

// TestOneByteDatagramHasNoMsgCount: a 1-byte game datagram (a peer id
// alone) has no msg_count, so its JSON record has no msg_count key, as the
// Wireshark plugin has no such field; a 2-byte one has it.
func TestOneByteDatagramHasNoMsgCount(t *testing.T) {
	path, _ := generatedCapture(anomaly.ShortDatagram)(t)
	found := false
	for _, rec := range readRecords(t, "read", "-F", "json", path) {
		if rec.Kind != "game" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(rec.line, &m); err != nil {
			t.Fatal(err)
		}
		_, has := m["msg_count"]
		if rec.Frame == dissecttest.AnomalyFrame {
			found = true
			if has {
				t.Errorf("frame %d (1 byte): msg_count present: %s", rec.Frame, rec.line)
			}
		} else if !has {
			t.Errorf("frame %d: msg_count missing: %s", rec.Frame, rec.line)
		}
	}
	if !found {
		t.Fatalf("no record of frame %d", dissecttest.AnomalyFrame)
	}
}

// TestNonStockShapes: each shape another implementation writes where it
// differs from stock (dissecttest.NonStock, OpenBC's bytes) is named by
// its non-stock-* warning, on its frame, in place of the error the stock
// layout would raise; nothing else is flagged.
func TestNonStockShapes(t *testing.T) {
	path := writeSession(t, dissecttest.NonStock(), "non-stock")
	got := map[string][]int{}
	for _, a := range readAnomalies(t, path, nil) {
		if a.sev == "error" {
			t.Errorf("frame %d: error %s: %s", a.frame, a.code, a.text)
		}
		if strings.HasPrefix(a.code, "non-stock-") {
			if a.sev != "warn" || !strings.Contains(a.text, "stock") {
				t.Errorf("frame %d: %s %s %q", a.frame, a.code, a.sev, a.text)
			}
			got[a.code] = append(got[a.code], a.frame)
		}
	}
	if !reflect.DeepEqual(got, dissecttest.NonStockFrames) {
		t.Errorf("non-stock anomalies at %v, want %v", got, dissecttest.NonStockFrames)
	}
	// The session counts the type 0x06 disconnect as the client leaving.
	code, out, errs := runCLI(t, nil, "session", path)
	if code != exitOK || !strings.Contains(out, "disconnected (type 0x06, non-stock)") {
		t.Errorf("session: code %d %s\n%s", code, errs, out)
	}
}
