package diff

import (
	"bytes"
	"encoding/json"
	"flag"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/bcdump/bcdump/report/reporttest"

	"github.com/gopacket/gopacket/layers"

	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/transport/transporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// checkGolden compares got with testdata/golden/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	reporttest.Golden(t, filepath.Join("testdata", "golden", name), got, *update, "./report/diff")
}

// sampleVariant is the sample with four differences: the client's chat
// text, one checksum content hash, an extra chat message and the host's
// relayed chat missing.
func sampleVariant(t testing.TB) *dissecttest.Session {
	s := dissecttest.Sample()
	edit := func(c2s bool, sub []byte, fn func(p []byte)) {
		i := findDatagram(t, s, c2s, sub)
		s.Datagrams[i].Plain = slices.Clone(s.Datagrams[i].Plain)
		fn(s.Datagrams[i].Plain)
	}
	edit(true, chatHello, func(p []byte) { p[len(p)-1] = 'p' })
	edit(true, []byte{0xA1, 0xE6, 0x01, 0x85, 0x49, 0x00}, func(p []byte) {
		p[bytes.Index(p, []byte{0x49, 0x00, 0x93, 0x17})] ^= 0x10
	})
	i := findDatagram(t, s, false, chatHello)
	s.Datagrams = slices.Delete(s.Datagrams, i, i+1)
	i = findDatagram(t, s, true, []byte("hellp"))
	p := transporttest.AppendHeader(nil, 2, 1)
	p = transporttest.AppendData(p, transporttest.DataHeader{Reliable: true, Seq: 7},
		[]byte{0x2C, 0x02, 0, 0, 0, 0x05, 0, 'a', 'g', 'a', 'i', 'n'})
	s.Datagrams = slices.Insert(s.Datagrams, i+1, dissecttest.Datagram{Time: s.Datagrams[i].Time.Add(time.Millisecond), C2S: true, Plain: p})
	return s
}

func renderBoth(t *testing.T, res *Result) (text, js []byte) {
	t.Helper()
	var tb, jb bytes.Buffer
	if err := res.WriteText(&tb); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(jb.Bytes(), &doc); err != nil {
		t.Fatalf("JSON output does not parse: %v", err)
	}
	if doc["equal"] != res.Equal() {
		t.Fatalf("JSON equal = %v, result %v", doc["equal"], res.Equal())
	}
	return tb.Bytes(), jb.Bytes()
}

func TestGolden(t *testing.T) {
	base := samplePcap(t)
	cases := []struct {
		name     string
		old, new func(t *testing.T) (string, []byte)
		opt      Options
	}{
		{"equal",
			func(t *testing.T) (string, []byte) { return "sample.pcap", base },
			func(t *testing.T) (string, []byte) { return "sample.json", traceOf(t, base) },
			Options{Context: 3}},
		{"sample",
			func(t *testing.T) (string, []byte) { return "sample.pcap", base },
			func(t *testing.T) (string, []byte) {
				return "variant.pcapng", writeFrames(t, framesOf(sampleVariant(t)), "pcapng", layers.LinkTypeLinuxSLL2)
			},
			Options{Context: 3}},
		{"flows",
			func(t *testing.T) (string, []byte) { return "two-clients.pcap", twoClients(t, "howdy", false) },
			func(t *testing.T) (string, []byte) { return "two-clients-swapped.pcap", twoClients(t, "hiyas", true) },
			Options{Context: 1}},
		{"stateupdate",
			func(t *testing.T) (string, []byte) { o, _ := mutateStateUpdate(t); return "openbc-session-3.pcap", o },
			func(t *testing.T) (string, []byte) { _, n := mutateStateUpdate(t); return "stateupdate-speed.pcap", n },
			Options{Context: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			on, ob := c.old(t)
			nn, nb := c.new(t)
			res := Compare(load(t, on, ob), load(t, nn, nb), c.opt)
			text, js := renderBoth(t, res)
			checkGolden(t, "diff-"+c.name+".txt", text)
			checkGolden(t, "diff-"+c.name+".json", js)
		})
	}
}
