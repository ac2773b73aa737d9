package dissect

import (
	"strings"
	"testing"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Past the event limit, events are counted by code, not kept, and Finish
// ends with one tracking-limit note per code.
func TestEventLimit(t *testing.T) {
	d := New(Options{})
	d.maxEvents = 2
	ev := func(code anomaly.Code, frame int) Event {
		return Event{Frame: frame, Anomaly: anomaly.Anomaly{Code: code, Msg: anomaly.NoMsg}}
	}
	d.hold([]Event{ev(anomaly.RetransmitUnacked, 1), ev(anomaly.PeerTimeout, 2)})
	d.hold([]Event{ev(anomaly.RetransmitUnacked, 3), ev(anomaly.RetransmitUnacked, 4), ev(anomaly.FragmentIncomplete, 5)})
	if got := d.EventsFound(); got != 5 {
		t.Errorf("EventsFound %d, want 5", got)
	}
	u := d.Unlisted()
	if u[anomaly.RetransmitUnacked] != 2 || u[anomaly.FragmentIncomplete] != 1 || len(u) != 2 {
		t.Errorf("Unlisted %v", u)
	}
	end := d.Finish()
	var got []string
	for _, e := range end {
		got = append(got, e.Code.String())
	}
	want := "retransmit-unacked peer-timeout tracking-limit tracking-limit"
	if strings.Join(got, " ") != want {
		t.Fatalf("Finish codes %v, want %s", got, want)
	}
	if m := end[2].Message(); !strings.HasPrefix(m, "1 more fragment-incomplete (warn) anomalies") {
		t.Errorf("first note %q", m)
	}
	if m := end[3].Message(); !strings.HasPrefix(m, "2 more retransmit-unacked (warn) anomalies") {
		t.Errorf("second note %q", m)
	}
}
