package dissecttest

import (
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
)

// bigSample is the sample with a 3000-byte server datagram after it, more
// than the log dumps.
func bigSample(t *testing.T) []byte {
	t.Helper()
	s := Sample()
	big := make([]byte, 3000)
	big[0], big[1] = 1, 0 // peer 1, no messages: the bytes do not matter here
	s.Add(10*time.Millisecond, false, big)
	var b bytes.Buffer
	if err := s.WritePcap(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readBack(t *testing.T, log []byte) (pkts []capture.Packet, notes []string) {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(log), "packet_trace.log", capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		var p capture.Packet
		err := r.Next(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range p.Lost {
			notes = append(notes, n.Text.String())
		}
		p.Data, p.Payload, p.Lost = nil, nil, nil
		pkts = append(pkts, p)
	}
	for _, n := range r.TakeNotes() {
		notes = append(notes, n.Text.String())
	}
	return pkts, notes
}

// lineOf is the 1-based line of the entry with SEQ seq.
func lineOf(log []byte, seq int) int {
	for i, l := range strings.Split(string(log), "\n") {
		if strings.Contains(l, fmt.Sprintf("] #%d ", seq)) {
			return i + 1
		}
	}
	return 0
}

func TestWriteTraceLogShapes(t *testing.T) {
	pcap := bigSample(t)
	r, err := capture.NewReader(bytes.NewReader(pcap), "big", capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := WriteTraceLog(&log, r, TraceLogOptions{Peers: -1, UnknownDest: []int{4}, Decoded: true}); err != nil {
		t.Fatal(err)
	}
	all := bytes.Count(log.Bytes(), []byte("\n["))
	for _, want := range []string{"] #4 S->? unknown len=", "  Decoded:\n    gamename = bcommander\n", "  Hex:\n",
		"    ... (952 bytes truncated)\n", "C->S 192.168.1.20:2655 len=8 rc=8 GAMESPY_QUERY [\\status\\]"} {
		if !bytes.Contains(log.Bytes(), []byte(want)) {
			t.Errorf("the log lacks %q", want)
		}
	}
	pkts, notes := readBack(t, log.Bytes())
	if len(pkts) != all-1 {
		t.Fatalf("%d datagrams read back of %d entries (one truncated)", len(pkts), all)
	}
	unknown := netip.MustParseAddrPort("198.51.100.254:1")
	client := netip.MustParseAddrPort("192.168.1.20:2655")
	for _, p := range pkts {
		peer := p.Dst
		if p.Src != capture.DefaultTraceServer {
			peer = p.Src
		}
		if want := client; p.Frame == 4 && peer != unknown || p.Frame != 4 && peer != want {
			t.Errorf("frame %d: %v -> %v", p.Frame, p.Src, p.Dst)
		}
	}
	want := fmt.Sprintf("line %d: entry #%d is truncated: the log holds 2048 of its 3000 bytes; skipped", lineOf(log.Bytes(), all), all)
	if len(notes) != 1 || !strings.Contains(notes[0], want) {
		t.Errorf("notes %q, want one with %q", notes, want)
	}
}

func TestWriteTraceLogCut(t *testing.T) {
	r, err := capture.NewReader(bytes.NewReader(bigSample(t)), "big", capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := WriteTraceLog(&log, r, TraceLogOptions{CutInEntry: 9}); err != nil {
		t.Fatal(err)
	}
	pkts, notes := readBack(t, log.Bytes())
	if len(pkts) != 8 {
		t.Errorf("%d datagrams read before the cut, want 8", len(pkts))
	}
	want := fmt.Sprintf("ends inside entry #9 (line %d)", lineOf(log.Bytes(), 9))
	if len(notes) != 1 || !strings.Contains(notes[0], want) {
		t.Errorf("notes %q, want one with %q", notes, want)
	}
}
