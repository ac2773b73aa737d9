package story

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/transport"
)

// Datagrams with nothing for the story (StateUpdates, ACKs) cost no
// allocation once their players are known.
func TestNoAllocsOnStateUpdates(t *testing.T) {
	pcap := readFile(t, filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
	r, err := capture.NewReader(bytes.NewReader(pcap), "test", capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := New()
	s := dissect.NewSession(dissect.SessionOptions{Mode: dissect.Serial})
	checked := 0
	err = s.Run(context.Background(), r, dissect.SinkFuncs{OnDatagram: func(dg *dissect.Datagram) error {
		if err := a.Datagram(dg); err != nil {
			return err
		}
		if !plain(dg) || dg.Frame < 1000 {
			return nil // the RTT sample lists grow early on
		}
		checked++
		if n := testing.AllocsPerRun(3, func() { a.Datagram(dg) }); n != 0 {
			t.Errorf("frame %d: %.0f allocations", dg.Frame, n)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 1000 {
		t.Errorf("only %d datagrams checked", checked)
	}
}

// plain reports whether dg holds only StateUpdates and ACKs, no anomaly.
func plain(dg *dissect.Datagram) bool {
	if dg.Kind != dissect.KindGame || len(dg.Anomalies) > 0 {
		return false
	}
	for i := range dg.Transport.Messages {
		m := &dg.Transport.Messages[i]
		switch {
		case m.Type == transport.TypeACK:
		case m.Type == transport.TypeData && len(m.Payload) > 0 && m.Payload[0] == 0x1C:
		default:
			return false
		}
	}
	return true
}
