package profile

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// Every anomaly session and bundled capture profiles without panicking,
// and the documents render and compare with each other.
func TestProfileOddInput(t *testing.T) {
	var docs []*Doc
	for _, code := range dissecttest.AnomalyCodes() {
		s, _ := dissecttest.Anomaly(code)
		docs = append(docs, profileOf(t, s).Doc(true))
	}
	for _, c := range []string{"sample.pcap", "captures/stock-excerpts.pcap", "captures/openbc-session-2.pcap"} {
		docs = append(docs, profileFile(t, filepath.Join(testdata, c)).Doc(true))
	}
	docs = append(docs, New(Options{}).Doc(true)) // nothing at all
	for i, d := range docs {
		var buf bytes.Buffer
		if err := d.WriteTable(&buf); err != nil {
			t.Fatal(err)
		}
		if err := d.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		Compare("a", d, "b", docs[(i+1)%len(docs)], CompareOptions{})
	}
}

// FuzzProfile feeds raw UDP payloads of one client/server pair (2-byte
// header per datagram: bit 15 from the server, low 11 bits the length)
// through the dissector into a Profiler. Nothing may panic.
func FuzzProfile(f *testing.F) {
	connect := []byte{0xFF, 0x01, 0x03, 0x0F, 0xC0, 0, 0, 0x0A, 0x0A, 0x0A, 0xEF, 0x5F, 0x0A, 0, 0, 0, 0}
	cipher.Encrypt(connect)
	su := []byte{0x01, 0x01, 0x32, 0x0D, 0x00, 0x1C, 0xFF, 0xFF, 0xFF, 0x3F, 0, 0, 0, 0, 0x20}
	cipher.Encrypt(su)
	f.Add(append(binary.LittleEndian.AppendUint16(nil, uint16(len(connect))), connect...))
	f.Add(append(binary.LittleEndian.AppendUint16(nil, 0x8000|uint16(len(su))), su...))
	client, server := netip.MustParseAddrPort("10.0.0.2:2655"), netip.MustParseAddrPort("10.0.0.1:22101")
	f.Fuzz(func(t *testing.T, in []byte) {
		d := dissect.New(dissect.Options{})
		p := New(Options{})
		now := time.Unix(1e9, 0)
		for len(in) >= 2 {
			h := binary.LittleEndian.Uint16(in)
			n := min(int(h&0x7FF), len(in)-2)
			pk := capture.Packet{Time: now, Src: client, Dst: server, Payload: in[2 : 2+n]}
			if h&0x8000 != 0 {
				pk.Src, pk.Dst = server, client
			}
			now = now.Add(time.Duration(h>>11&0xF) * time.Millisecond)
			in = in[2+n:]
			if err := p.Datagram(d.Packet(&pk)); err != nil {
				t.Fatal(err)
			}
		}
		_ = p.Finish(d.Finish())
		doc := p.Doc(true)
		Compare("a", doc, "b", doc, CompareOptions{})
	})
}

// A saved document with any content reads and compares without panicking.
func FuzzReadDoc(f *testing.F) {
	f.Add([]byte(`{"bcdump_profile":1,"c2s":{"opcodes":[{"opcode":28,"opcode_hex":"0x1C","count":5}]}}`))
	f.Add([]byte(`{"bcdump_profile":1,"flows":-3,"pairs":[{"pair":"connect","requests":0,"extra_responses":2}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ReadDoc(bytes.NewReader(in))
		if err != nil {
			return
		}
		Compare("a", d, "b", &Doc{Version: 1}, CompareOptions{})
		var buf bytes.Buffer
		_ = d.WriteTable(&buf)
	})
}
