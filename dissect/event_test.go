package dissect

import (
	"strings"
	"testing"

	"github.com/bcdump/bcdump/transport"
)

// Past the event limit, events are counted by code, not kept, and Finish
// ends with one tracking-limit note per code.
func TestEventLimit(t *testing.T) {
	d := New(Options{})
	d.maxEvents = 2
	ev := func(code string, sev transport.Severity, frame int) Event {
		return Event{Frame: frame, Msg: -1, Anomaly: transport.Anomaly{Code: code, Severity: sev}}
	}
	d.hold([]Event{ev("retransmit-unacked", transport.SevWarn, 1), ev("peer-timeout", transport.SevWarn, 2)})
	d.hold([]Event{ev("retransmit-unacked", transport.SevWarn, 3), ev("retransmit-unacked", transport.SevWarn, 4), ev("fragment-incomplete", transport.SevWarn, 5)})
	if got := d.EventsFound(); got != 5 {
		t.Errorf("EventsFound %d, want 5", got)
	}
	u := d.Unlisted()
	if u["retransmit-unacked"].Count != 2 || u["fragment-incomplete"].Count != 1 || len(u) != 2 {
		t.Errorf("Unlisted %v", u)
	}
	end := d.Finish()
	var got []string
	for _, e := range end {
		got = append(got, e.Code)
	}
	want := "retransmit-unacked peer-timeout tracking-limit tracking-limit"
	if strings.Join(got, " ") != want {
		t.Fatalf("Finish codes %v, want %s", got, want)
	}
	if m := end[2].Message; !strings.HasPrefix(m, "1 more fragment-incomplete (warn) anomalies") {
		t.Errorf("first note %q", m)
	}
	if m := end[3].Message; !strings.HasPrefix(m, "2 more retransmit-unacked (warn) anomalies") {
		t.Errorf("second note %q", m)
	}
}
