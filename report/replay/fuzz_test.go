package replay

import (
	"encoding/binary"
	"io"
	"net/netip"
	"testing"

	"github.com/bcdump/bcdump/transport/endpoint"
)

// FuzzServerAnswers feeds what a hostile server might deliver (any
// payloads, reliable or not) into a replaying client and compares the
// result with a real recording: no panic, and the kept answers stay
// within their bound.
func FuzzServerAnswers(f *testing.F) {
	rec := loadF(f, "../../testdata/sample.pcap")
	conv := rec.Conversations[0]
	for _, m := range conv.Answers() {
		f.Add(frame(m.Payload, m.Reliable))
	}
	f.Add(frame([]byte{0x20, 0x00, 0xFF, 0xFF}, true))                // a checksum request cut short
	f.Add(frame([]byte{0x00, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF}, true)) // Settings with a wild slot
	f.Add(append(frame([]byte{0x1C}, false), frame([]byte{0x2C, 1}, true)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		ep := endpoint.New(endpoint.Config{Role: endpoint.Client})
		host, err := ep.Connect(netip.MustParseAddrPort("127.0.0.1:22101"))
		if err != nil {
			t.Fatal(err)
		}
		d := &driver{conv: conv, ep: ep, host: host, live: &Live{Conv: conv, Slot: -1},
			counts: map[int]int{}, deficit: map[int]int{}, maxAnswers: 64, wake: make(chan struct{}, 1)}
		for len(data) >= 3 {
			n := int(binary.LittleEndian.Uint16(data))
			reliable := data[2]&1 == 1
			data = data[3:]
			n = min(n, len(data))
			d.received(endpoint.Event{Kind: endpoint.EventMessage, Reliable: reliable, Payload: data[:n]})
			data = data[n:]
		}
		if kept := len(d.live.Messages); kept > d.maxAnswers+d.answeredChecksums() {
			t.Fatalf("%d messages kept, bound %d", kept, d.maxAnswers)
		}
		rows := Compare(d.live, FromServer, 0, Tolerances{})
		if err := WriteTable(io.Discard, rows, true, 80); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(io.Discard, &Document{Rows: rows}); err != nil {
			t.Fatal(err)
		}
	})
}

// answeredChecksums counts the client's checksum answers among the kept
// messages (they are the client's, not the server's).
func (d *driver) answeredChecksums() int {
	n := 0
	for _, m := range d.live.Messages {
		if m.Dir == FromClient {
			n++
		}
	}
	return n
}

// frame is one fuzz record: u16 length, a reliable flag byte, payload.
func frame(p []byte, reliable bool) []byte {
	b := binary.LittleEndian.AppendUint16(nil, uint16(len(p)))
	if reliable {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return append(b, p...)
}

func loadF(f *testing.F, path string) *Recording {
	f.Helper()
	rec, err := Load(f.Context(), dissectInput(path), dissectOptions())
	if err != nil {
		f.Fatal(err)
	}
	return rec
}
