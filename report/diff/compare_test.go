package diff

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/transport/transporttest"
)

var (
	hello     = []byte("hello")
	chatHello = []byte{0x2C, 0x02, 0, 0, 0, 0x05, 0, 'h', 'e', 'l', 'l', 'o'}
)

func gz(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// splitACKs rewrites the sample's datagram of three ACKs as three
// datagrams of one ACK each: batching must not count.
func splitACKs(t testing.TB) *dissecttest.Session {
	s := dissecttest.Sample()
	i := findDatagram(t, s, true, []byte{0x02, 0x03, 0x01, 0x05, 0x00, 0x00, 0x01, 0x06})
	d := s.Datagrams[i]
	var out []dissecttest.Datagram
	for k := range 3 {
		p := transporttest.AppendHeader(nil, 2, 1)
		p = append(p, d.Plain[2+4*k:6+4*k]...)
		out = append(out, dissecttest.Datagram{Time: d.Time.Add(time.Duration(k) * time.Millisecond), C2S: true, Plain: p})
	}
	s.Datagrams = slices.Concat(s.Datagrams[:i], out, s.Datagrams[i+1:])
	return s
}

// twoClients interleaves two joins by time: a from start, b 100 ms later.
// With swap the roles of first and second flow are exchanged.
func twoClients(t testing.TB, bText string, swap bool) []byte {
	a := dissecttest.Sample()
	b := dissecttest.Sample()
	b.Client = netip.MustParseAddrPort("192.168.1.21:2700")
	if bText != "hello" {
		i := findDatagram(t, b, true, chatHello)
		b.Datagrams[i].Plain = bytes.Replace(slices.Clone(b.Datagrams[i].Plain), hello, []byte(bText), 1)
		i = findDatagram(t, b, false, chatHello)
		b.Datagrams[i].Plain = bytes.Replace(slices.Clone(b.Datagrams[i].Plain), hello, []byte(bText), 1)
	}
	if swap {
		shift(a, 100*time.Millisecond)
	} else {
		shift(b, 100*time.Millisecond)
	}
	fs := append(framesOf(a), framesOf(b)...)
	slices.SortStableFunc(fs, func(x, y frameOf) int { return x.d.Time.Compare(y.d.Time) })
	return writeFrames(t, fs, "pcap", layers.LinkTypeEthernet)
}

func TestEqualVariants(t *testing.T) {
	base := samplePcap(t)
	frames := framesOf(dissecttest.Sample())
	moved := dissecttest.Sample()
	moved.Client = netip.MustParseAddrPort("10.1.2.3:50000")
	moved.Server = netip.MustParseAddrPort("10.1.2.1:22101")
	late := dissecttest.Sample()
	shift(late, 36*time.Hour)
	for k := len(late.Datagrams) / 2; k < len(late.Datagrams); k++ {
		late.Datagrams[k].Time = late.Datagrams[k].Time.Add(700 * time.Millisecond)
	}
	cases := []struct {
		name     string
		old, new []byte
	}{
		{"itself", base, base},
		{"pcapng", base, writeFrames(t, frames, "pcapng", layers.LinkTypeEthernet)},
		{"sll2-pcap", base, writeFrames(t, frames, "pcap", layers.LinkTypeLinuxSLL2)},
		{"sll2-pcapng", base, writeFrames(t, frames, "pcapng", layers.LinkTypeLinuxSLL2)},
		{"gzip", base, gz(t, base)},
		{"own-json", base, traceOf(t, base)},
		{"live-json-with-event-lines", base, withEventLine(traceOf(t, base))},
		{"json-vs-own-json-gzip", traceOf(t, base), gz(t, traceOf(t, base))},
		{"other-addresses", base, writeFrames(t, framesOf(moved), "pcap", layers.LinkTypeEthernet)},
		{"other-times", base, writeFrames(t, framesOf(late), "pcap", layers.LinkTypeEthernet)},
		{"acks-batched-otherwise", base, writeFrames(t, framesOf(splitACKs(t)), "pcap", layers.LinkTypeEthernet)},
		{"flows-reordered", twoClients(t, "howdy", false), twoClients(t, "howdy", true)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Compare(load(t, "old", c.old), load(t, "new", c.new), Options{Context: 3})
			if !res.Equal() {
				var buf bytes.Buffer
				res.WriteText(&buf)
				t.Fatalf("want equal:\n%s", buf.String())
			}
			if res.Summary.OldMessages == 0 || res.Summary.OldMessages != res.Summary.NewMessages {
				t.Fatalf("summary %+v", res.Summary)
			}
		})
	}
}

// withEventLine puts a {"kind":"event"} line, as bcdump live writes them,
// after the first datagram of a trace.
func withEventLine(trace []byte) []byte {
	i := bytes.IndexByte(trace, '\n') + 1
	ev := `{"kind":"event","code":"peer-timeout","severity":"warn","message":"m","frame":1,"client":"10.0.0.2:50000","server":"10.0.0.1:22101"}` + "\n"
	return append(append(append([]byte(nil), trace[:i]...), ev...), trace[i:]...)
}

// wantDiff is the one difference a variant must produce.
type wantDiff struct {
	flow               int
	dir                int
	op                 Op
	oldFrame, newFrame int // 0: no message on that side
	path               string
}

func findEdit(res *Result, w wantDiff) *Edit {
	for _, fd := range res.Flows {
		if fd.Index != w.flow {
			continue
		}
		es := fd.Edits(w.dir)
		for i := range es {
			e := &es[i]
			if e.Op != w.op || (e.Old == nil) != (w.oldFrame == 0) || (e.New == nil) != (w.newFrame == 0) {
				continue
			}
			if e.Old != nil && int(e.Old.Frame) != w.oldFrame || e.New != nil && int(e.New.Frame) != w.newFrame {
				continue
			}
			if w.path == "" {
				return e
			}
			for _, c := range e.Changes {
				if c.Path == w.path {
					return e
				}
			}
		}
	}
	return nil
}

func TestDifferences(t *testing.T) {
	base := samplePcap(t)
	pcap := func(s *dissecttest.Session) []byte {
		return writeFrames(t, framesOf(s), "pcap", layers.LinkTypeEthernet)
	}
	chat := pcap(mutateSample(t, true, chatHello, func(p []byte) { p[len(p)-1] = 'p' }))
	// Round 1 response: file name hash 0x8501E6A1, content hash 0x17930049.
	hash := pcap(mutateSample(t, true, []byte{0xA1, 0xE6, 0x01, 0x85, 0x49, 0x00}, func(p []byte) {
		i := bytes.Index(p, []byte{0x49, 0x00, 0x93, 0x17})
		p[i] ^= 0x10
	}))
	extra := dissecttest.Sample()
	{
		i := findDatagram(t, extra, true, chatHello)
		p := transporttest.AppendHeader(nil, 2, 1)
		p = transporttest.AppendData(p, transporttest.DataHeader{Reliable: true, Seq: 7},
			[]byte{0x2C, 0x02, 0, 0, 0, 0x05, 0, 'a', 'g', 'a', 'i', 'n'})
		d := dissecttest.Datagram{Time: extra.Datagrams[i].Time.Add(time.Millisecond), C2S: true, Plain: p}
		extra.Datagrams = slices.Insert(extra.Datagrams, i+1, d)
	}
	missing := dissecttest.Sample()
	{
		i := findDatagram(t, missing, false, chatHello)
		missing.Datagrams = slices.Delete(missing.Datagrams, i, i+1)
	}
	cases := []struct {
		name     string
		old, new []byte
		opt      Options
		want     wantDiff
		n        int // differences
	}{
		{"chat-text", base, chat, Options{}, wantDiff{1, C2S, Changed, 24, 24, "fields.text"}, 1},
		{"chat-text-vs-json", traceOf(t, base), chat, Options{}, wantDiff{1, C2S, Changed, 24, 24, "fields.text"}, 1},
		{"checksum-hash", base, hash, Options{}, wantDiff{1, C2S, Changed, 10, 10, "fields.files[0].content_hash"}, 1},
		{"extra-message", base, pcap(extra), Options{}, wantDiff{1, C2S, Added, 0, 25, ""}, 1},
		{"missing-message", base, pcap(missing), Options{}, wantDiff{1, S2C, Removed, 25, 0, ""}, 1},
		{"flows-reordered-one-differs", twoClients(t, "howdy", false), twoClients(t, "hiyas", true),
			Options{}, wantDiff{2, C2S, Changed, 0, 0, "fields.text"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Compare(load(t, "old", c.old), load(t, "new", c.new), c.opt)
			var buf bytes.Buffer
			if err := res.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			if res.Summary.Differences != c.n {
				t.Fatalf("%d differences, want %d:\n%s", res.Summary.Differences, c.n, buf.String())
			}
			w := c.want
			if w.oldFrame == 0 && w.newFrame == 0 { // any frames
				e := anyEdit(res, w)
				if e == nil {
					t.Fatalf("no %v edit at %s in flow %d:\n%s", w.op, w.path, w.flow, buf.String())
				}
				return
			}
			if findEdit(res, w) == nil {
				t.Fatalf("no edit %+v:\n%s", w, buf.String())
			}
			if w.path != "" && !strings.Contains(buf.String(), "~") {
				t.Fatalf("text output does not name the field:\n%s", buf.String())
			}
		})
	}
}

func anyEdit(res *Result, w wantDiff) *Edit {
	for _, fd := range res.Flows {
		if fd.Index != w.flow {
			continue
		}
		es := fd.Edits(w.dir)
		for i := range es {
			e := &es[i]
			for _, c := range e.Changes {
				if e.Op == w.op && c.Path == w.path {
					return e
				}
			}
		}
	}
	return nil
}

func TestOptions(t *testing.T) {
	base := samplePcap(t)
	chat := writeFrames(t, framesOf(mutateSample(t, true, chatHello, func(p []byte) { p[len(p)-1] = 'p' })), "pcap", layers.LinkTypeEthernet)
	late := dissecttest.Sample()
	i := findDatagram(t, late, true, chatHello)
	for k := i; k < len(late.Datagrams); k++ {
		late.Datagrams[k].Time = late.Datagrams[k].Time.Add(time.Second)
	}
	latePcap := writeFrames(t, framesOf(late), "pcap", layers.LinkTypeEthernet)
	moved := dissecttest.Sample()
	moved.Client = netip.MustParseAddrPort("10.1.2.3:50000")
	movedPcap := writeFrames(t, framesOf(moved), "pcap", layers.LinkTypeEthernet)
	cases := []struct {
		name     string
		new      []byte
		opt      Options
		n        int
		wantPath string
	}{
		{"ignore-chat-text", chat, Options{Ignore: []string{"fields.text"}}, 0, ""},
		{"ignore-all-fields", chat, Options{Ignore: []string{"fields"}}, 0, ""},
		{"timing-off", latePcap, Options{}, 0, ""},
		// The chat both ways and the Disconnect moved; the datagrams of
		// ACKs only that moved with them hold no message.
		{"timing-tight", latePcap, Options{Timing: true, Tolerance: 10 * time.Millisecond}, 3, PathTime},
		{"timing-loose", latePcap, Options{Timing: true, Tolerance: 2 * time.Second}, 0, ""},
		{"timing-ignored", latePcap, Options{Timing: true, Ignore: []string{"time"}}, 0, ""},
		{"addresses-off", movedPcap, Options{}, 0, ""},
		{"addresses-on", movedPcap, Options{Addresses: true}, 1, "client"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Compare(load(t, "old", base), load(t, "new", c.new), c.opt)
			var buf bytes.Buffer
			res.WriteText(&buf)
			if res.Summary.Differences != c.n {
				t.Fatalf("%d differences, want %d:\n%s", res.Summary.Differences, c.n, buf.String())
			}
			if c.wantPath != "" && !strings.Contains(buf.String(), c.wantPath+":") && !strings.Contains(buf.String(), "client ") {
				t.Fatalf("output lacks %s:\n%s", c.wantPath, buf.String())
			}
		})
	}
}

// rewriteReal copies a real capture through fn, which may change a
// frame in place or drop it; it returns the original and the copy.
func rewriteReal(t *testing.T, name string, fn func(p *capture.Packet) (keep bool)) (orig, out []byte) {
	t.Helper()
	path := filepath.Join(captures, name)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := capture.NewReader(bytes.NewReader(orig), name, capture.Options{AllFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	w, err := capture.NewWriterFor(&buf, r)
	if err != nil {
		t.Fatal(err)
	}
	var p capture.Packet
	for {
		if err := r.Next(&p); err != nil {
			break
		}
		if fn(&p) {
			if err := w.Write(&p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return orig, buf.Bytes()
}

// mutateStateUpdate flips a bit of the speed of the StateUpdate in frame 112
// of openbc-session-3 (deciphered, changed, enciphered again).
func mutateStateUpdate(t *testing.T) (orig, out []byte) {
	return rewriteReal(t, "openbc-session-3.pcap", func(p *capture.Packet) bool {
		if p.Frame == 112 {
			pl := p.Payload
			cipher.Decrypt(pl)
			if pl[5] != 0x1C { // 32 16 00 1C: unreliable Data, StateUpdate
				t.Fatalf("frame 112 is not the StateUpdate: % x", pl)
			}
			pl[0x16] ^= 0x01 // speed, second byte
			cipher.Encrypt(pl)
			capture.FixUDPChecksum(p)
		}
		return true
	})
}

func TestRealCaptureVariants(t *testing.T) {
	orig, su := mutateStateUpdate(t)
	res := Compare(load(t, "old", orig), load(t, "new", su), Options{})
	var buf bytes.Buffer
	res.WriteText(&buf)
	if res.Summary.Differences != 1 || findEdit(res, wantDiff{1, C2S, Changed, 112, 112, "fields.speed"}) == nil {
		t.Fatalf("StateUpdate speed change not found:\n%s", buf.String())
	}

	// Dropping a retransmitted copy (frame 2121, s2c seq 89 resent) is no
	// difference, unless retransmissions count.
	_, fewer := rewriteReal(t, "openbc-session-3.pcap", func(p *capture.Packet) bool { return p.Frame != 2121 })
	oc, nc := load(t, "old", orig), load(t, "new", fewer)
	if res := Compare(oc, nc, Options{}); !res.Equal() {
		var buf bytes.Buffer
		res.WriteText(&buf)
		t.Fatalf("a dropped retransmission counts by default:\n%s", buf.String())
	}
	res = Compare(oc, nc, Options{Retransmits: true})
	buf.Reset()
	res.WriteText(&buf)
	if res.Summary.Differences != 1 || !strings.Contains(buf.String(), "retransmits: 1 -> 0") {
		t.Fatalf("--retransmits misses the dropped resend:\n%s", buf.String())
	}

	// Every real capture equals itself, its pcapng copy and its trace.
	for _, name := range []string{"stock-excerpts.pcap", "openbc-session-2.pcap", "openbc-session-3.pcap"} {
		orig, copied := rewriteReal(t, name, func(*capture.Packet) bool { return true })
		png := toPcapng(t, orig)
		for _, other := range [][]byte{orig, copied, png, traceOf(t, orig)} {
			res := Compare(load(t, "old", orig), load(t, "new", other), Options{Retransmits: true, Addresses: true, Timing: true})
			if !res.Equal() {
				var buf bytes.Buffer
				res.WriteText(&buf)
				t.Fatalf("%s differs from its copy:\n%s", name, buf.String())
			}
		}
	}
}

// toPcapng copies a capture into pcapng.
func toPcapng(t *testing.T, capBytes []byte) []byte {
	r, err := capture.NewReader(bytes.NewReader(capBytes), "in", capture.Options{AllFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	var w *capture.Writer
	var p capture.Packet
	for r.Next(&p) == nil {
		if w == nil {
			if w, err = capture.NewWriter(&buf, "pcapng", p.LinkType); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Write(&p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A side whose content passes Options.SpillBytes moves it to a temporary
// file; the comparison and both outputs are the same as in memory, for a
// capture and for its trace (the store read back for every shown and
// changed message).
func TestSpilledEqualsInMemory(t *testing.T) {
	orig, fewer := rewriteReal(t, "openbc-session-3.pcap", func(p *capture.Packet) bool { return p.Frame != 2121 })
	loadOpt := func(name string, b []byte, opt *Options) *Conversation {
		t.Helper()
		var c *Conversation
		var err error
		if trace, _ := IsTrace(name, bytes.NewReader(b)); trace {
			c, err = LoadTrace(name, bytes.NewReader(b), nil, opt)
		} else {
			sink := NewCaptureSink(name, nil, opt)
			_, err = dissect.Dissect(context.Background(), dissect.Input{Name: "-", Stdin: bytes.NewReader(b)}, dissect.RunOptions{}, sink)
			c = sink.Conversation()
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	render := func(r *Result) string {
		var text, js bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		return text.String() + js.String()
	}
	opt := Options{Context: 2, Retransmits: true}
	mem := Compare(loadOpt("a", orig, &opt), loadOpt("b", traceOf(t, fewer), &opt), opt)
	spill := opt
	spill.SpillBytes = 1
	a, b := loadOpt("a", orig, &spill), loadOpt("b", traceOf(t, fewer), &spill)
	if !a.Spilled() || !b.Spilled() {
		t.Fatal("a 1-byte budget did not spill")
	}
	got := Compare(a, b, spill)
	if mem.Equal() || render(got) != render(mem) {
		t.Errorf("spilled comparison differs from the one in memory:\n%s\nwant\n%s", render(got), render(mem))
	}
}
