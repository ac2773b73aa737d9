package transport

import (
	"testing"
	"time"

	"github.com/bcdump/bcdump/transport/transporttest"
)

// FuzzReassemble drives the reassembler with fragments only: every 4 input
// bytes are one fragment (seq 0-7, index, total, payload length/8), so the
// fuzzer reaches overlapping, duplicate, out-of-range and overflowing
// reassemblies far sooner than through whole datagrams (FuzzTrack). A
// reassembled payload is never larger than the byte limit allows.
func FuzzReassemble(f *testing.F) {
	f.Add([]byte{0, 0, 3, 10, 0, 2, 0, 5, 0, 1, 0, 7})            // in order out of order: 0, 2, 1
	f.Add([]byte{1, 0, 0, 1, 1, 1, 0, 1})                         // total 0
	f.Add([]byte{2, 0, 255, 255, 2, 255, 0, 255, 2, 254, 0, 255}) // 255 fragments announced, limit hit
	f.Add([]byte{3, 0, 2, 4, 3, 0, 2, 4, 3, 1, 0, 4, 3, 1, 0, 9}) // duplicates, a resend that differs
	f.Add([]byte{4, 1, 0, 4, 5, 0, 2, 1, 6, 0, 2, 1, 7, 0, 2, 1}) // more open than MaxOpenReassemblies
	f.Fuzz(func(t *testing.T, in []byte) {
		cfg := Config{ReassemblyTimeout: time.Second, MaxOpenReassemblies: 3, MaxReassemblyBytes: 4096}
		tr := NewTracker(cfg)
		var dg Datagram
		info := make([]MsgInfo, 2)
		payload := make([]byte, 255*8)
		for i := range payload {
			payload[i] = byte(i)
		}
		var buf []byte
		for i := 0; i+4 <= len(in) && i < 4*512; i += 4 {
			h := transporttest.DataHeader{Reliable: true, Seq: uint16(in[i] & 7), Fragment: true, FragIdx: in[i+1], FragTotal: in[i+2]}
			buf = transporttest.AppendData(transporttest.AppendHeader(buf[:0], 2, 1), h, payload[:int(in[i+3])*8])
			Decode(buf, &dg)
			at := trkEpoch.Add(time.Duration(i) * 50 * time.Millisecond)
			tr.Track(Packet{Frame: i/4 + 1, Time: at, Client: trkClients[0], Server: trkServers[0], Dir: C2S, Size: len(buf)},
				&dg, info, nil)
			if r := info[0].Reassembled; len(r) > cfg.MaxReassemblyBytes+len(payload) {
				t.Fatalf("reassembled %d bytes, limit %d", len(r), cfg.MaxReassemblyBytes)
			}
		}
		tr.Finish()
	})
}
