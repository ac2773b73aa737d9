package diff

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/report/render"
)

// captures holds the module's real captures, relative to this package.
const captures = "../../testdata/captures"

// frameOf is one datagram of a session placed in a capture.
type frameOf struct {
	s *dissecttest.Session
	d dissecttest.Datagram
}

func framesOf(s *dissecttest.Session) []frameOf {
	out := make([]frameOf, len(s.Datagrams))
	for i, d := range s.Datagrams {
		out[i] = frameOf{s, d}
	}
	return out
}

// writeFrames writes the datagrams as a capture in the given container and
// link type (Ethernet or SLL2), in slice order.
func writeFrames(t testing.TB, frames []frameOf, format string, link layers.LinkType) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, format, link)
	if err != nil {
		t.Fatal(err)
	}
	for i := range frames {
		f := &frames[i]
		data, err := f.s.Frame(&f.d)
		if err != nil {
			t.Fatal(err)
		}
		if link == layers.LinkTypeLinuxSLL2 {
			data = toSLL2(data)
		}
		ci := gopacket.CaptureInfo{Timestamp: f.d.Time, CaptureLength: len(data), Length: len(data)}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// toSLL2 replaces an Ethernet header by a Linux cooked v2 header.
func toSLL2(eth []byte) []byte {
	proto := eth[12:14]
	h := []byte{proto[0], proto[1], 0, 0, 0, 0, 0, 3, 0, 1, 0, 6, 2, 0, 0, 0, 0, 0x0a, 0, 0}
	return append(h, eth[14:]...)
}

func samplePcap(t testing.TB) []byte {
	return writeFrames(t, framesOf(dissecttest.Sample()), "pcap", layers.LinkTypeEthernet)
}

// load reads one side from bytes under a fixed name (goldens hold names).
func load(t testing.TB, name string, b []byte) *Conversation {
	t.Helper()
	c, err := loadBytes(name, b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

// loadBytes reads one side as bcdump diff does: a trace by LoadTrace, a
// capture through dissect.Dissect into a CaptureSink.
func loadBytes(name string, b []byte) (*Conversation, error) {
	trace, err := IsTrace(name, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if trace {
		return LoadTrace(name, bytes.NewReader(b), nil, nil)
	}
	sink := NewCaptureSink(name, nil, nil)
	_, err = dissect.Dissect(context.Background(), dissect.Input{Name: "-", Stdin: bytes.NewReader(b)}, dissect.RunOptions{}, sink)
	if err != nil {
		return nil, err
	}
	return sink.Conversation(), nil
}

// traceOf renders a capture as `bcdump read --format json` does.
func traceOf(t testing.TB, capBytes []byte) []byte {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(capBytes), "trace", capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	rep := render.NewJSON(&out, false)
	if err := dissect.NewSession(dissect.SessionOptions{}).Run(context.Background(), r, rep); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// findDatagram returns the index of the first datagram of s in direction
// c2s whose plaintext contains sub.
func findDatagram(t testing.TB, s *dissecttest.Session, c2s bool, sub []byte) int {
	t.Helper()
	for i, d := range s.Datagrams {
		if d.C2S == c2s && bytes.Contains(d.Plain, sub) {
			return i
		}
	}
	t.Fatalf("no datagram contains %x", sub)
	return -1
}

// mutate returns a copy of the sample with fn applied to the plaintext of
// datagram i.
func mutateSample(t testing.TB, c2s bool, sub []byte, fn func(p []byte)) *dissecttest.Session {
	s := dissecttest.Sample()
	i := findDatagram(t, s, c2s, sub)
	s.Datagrams[i].Plain = slices.Clone(s.Datagrams[i].Plain)
	fn(s.Datagrams[i].Plain)
	return s
}

// shift moves every datagram of s by dt.
func shift(s *dissecttest.Session, dt time.Duration) {
	for i := range s.Datagrams {
		s.Datagrams[i].Time = s.Datagrams[i].Time.Add(dt)
	}
}
