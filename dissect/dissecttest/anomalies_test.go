package dissecttest

import (
	"bytes"
	"slices"
	"testing"

	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// codecCodes are the anomalies the wire codec alone finds; the other
// scenarios must frame cleanly.
var codecCodes = []anomaly.Code{anomaly.ShortDatagram, anomaly.BadLength, anomaly.LengthOverrun, anomaly.UnknownTransportType,
	anomaly.MsgCountMismatch, anomaly.TrailingBytes}

// Every scenario starts with the stock connect prefix, stays in time order
// and within the stock 512-byte datagram, and only the codec scenarios
// hold a datagram the codec flags: exactly one, at AnomalyFrame, with
// that code. (What the tracker and the handshake analysis make of each
// is tested end to end in cmd/bcdump.)
func TestAnomalySessions(t *testing.T) {
	prefix := connectPrefix().Datagrams
	if len(prefix) != AnomalyFrame-1 {
		t.Fatalf("prefix of %d datagrams, AnomalyFrame %d", len(prefix), AnomalyFrame)
	}
	codes := AnomalyCodes()
	if len(codes) < 11 || slices.Contains(codes, 0) {
		t.Fatalf("codes %q", codes)
	}
	for _, code := range codes {
		t.Run(code.String(), func(t *testing.T) {
			s, ok := Anomaly(code)
			if !ok || len(s.Datagrams) <= len(prefix) {
				t.Fatalf("ok %v, %d datagrams", ok, len(s.Datagrams))
			}
			for i, d := range prefix {
				if !bytes.Equal(s.Datagrams[i].Plain, d.Plain) || !s.Datagrams[i].Time.Equal(d.Time) {
					t.Errorf("datagram %d differs from the connect prefix", i+1)
				}
			}
			if !slices.IsSortedFunc(s.Datagrams, func(a, b Datagram) int { return a.Time.Compare(b.Time) }) {
				t.Error("datagrams out of time order")
			}
			var dg transport.Datagram
			var flagged []int
			for i, d := range s.Datagrams {
				if len(d.Plain) > 512 {
					t.Errorf("frame %d is %d bytes", i+1, len(d.Plain))
				}
				transport.Decode(d.Plain, &dg)
				for _, a := range dg.Anomalies {
					if a.Code != code {
						t.Errorf("frame %d: codec anomaly %s: %s", i+1, a.Code, a.Message())
					}
					flagged = append(flagged, i+1)
				}
			}
			want := []int(nil)
			if slices.Contains(codecCodes, code) {
				want = []int{AnomalyFrame}
			}
			if !slices.Equal(flagged, want) {
				t.Errorf("codec flags frames %v, want %v", flagged, want)
			}
			var a, b bytes.Buffer
			s2, _ := Anomaly(code)
			if s.WritePcap(&a) != nil || s2.WritePcap(&b) != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("two runs give different captures")
			}
		})
	}
	if s, ok := Anomaly(anomaly.PayloadMalformed); ok || s != nil {
		t.Error("a code without a scenario accepted")
	}
}
