package dissect_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/render"
)

// fuzzDatagrams splits fuzz input into datagrams: each is a 2-byte header
// (bit 15: from the server, low 11 bits: length) and that many bytes.
func fuzzDatagrams(in []byte, fn func(fromServer bool, p []byte)) {
	for len(in) >= 2 {
		h := binary.LittleEndian.Uint16(in)
		n := min(int(h&0x7FF), len(in)-2)
		fn(h&0x8000 != 0, in[2:2+n])
		in = in[2+n:]
	}
}

func fuzzEncode(dgs ...[]byte) []byte {
	var out []byte
	for i, p := range dgs {
		h := uint16(len(p))
		if i%2 == 1 {
			h |= 0x8000
		}
		out = binary.LittleEndian.AppendUint16(out, h)
		out = append(out, p...)
	}
	return out
}

// FuzzDissect runs raw UDP payloads (as captured: enciphered game datagrams
// or GameSpy text) of one client/server pair through the whole dissector
// (Decode and Advance: cipher, codec, control and opcode decoders, tracker,
// reassembly, handshake analysis) and every reporter's JSON. Nothing may
// panic; every message gets its dissect.Message.
func FuzzDissect(f *testing.F) {
	for _, hx := range []string{
		"FF01030FC000000A0A0AEF5F0A00000000",                                     // stock Connect request
		"01020306C0000002321B80000020000800736372697074732F07004170702E70796320", // Connect reply + ChecksumReq 0
		"0203050AC00200020A0A0AEF0127000001280000",                               // Disconnect + stale ACKs
		"010101020002",
	} {
		b, _ := hex.DecodeString(hx)
		cipher.Encrypt(b)
		f.Add(fuzzEncode(b, b))
	}
	f.Add(fuzzEncode([]byte(`\status\`), []byte(`\gamename\bcommander\hostname\x\final\`)))
	if raw, err := os.ReadFile(filepath.Join(testdata, "sample.pcap")); err == nil {
		if r, err := capture.NewReader(bytes.NewReader(raw), "sample", capture.Options{}); err == nil {
			var dgs [][]byte
			var p capture.Packet
			for r.Next(&p) == nil && len(dgs) < 12 {
				dgs = append(dgs, append([]byte(nil), p.Payload...))
			}
			f.Add(fuzzEncode(dgs...))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d := dissect.New(dissect.Options{})
		var dg dissect.Datagram
		frame := 0
		var line []byte
		fuzzDatagrams(in, func(fromServer bool, payload []byte) {
			frame++
			p := capture.Packet{Frame: frame, Time: hEpoch.Add(time.Duration(frame) * 700 * time.Millisecond),
				Src: hClient, Dst: hServer, Payload: payload}
			if fromServer {
				p.Src, p.Dst = hServer, hClient
			}
			d.Decode(&dg, &p)
			d.Advance(&dg)
			if dg.Kind == dissect.KindGame && len(dg.Msgs) != len(dg.Transport.Messages) {
				t.Fatalf("%d messages, %d described", len(dg.Transport.Messages), len(dg.Msgs))
			}
			line = render.AppendDatagramJSON(line[:0], &dg)
		})
		d.Finish()
		d.Flows()
	})
}
