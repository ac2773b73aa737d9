package endpoint

import (
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/transport"
)

// trackLog runs the passive tracker of package transport (written apart
// from this package) over a simNet's datagrams and returns the codes of
// every anomaly it raised, sorted and counted.
func trackLog(t *testing.T, n *simNet) string {
	t.Helper()
	tr := transport.NewTracker(transport.DefaultConfig())
	var dg transport.Datagram
	info := make([]transport.MsgInfo, 256)
	counts := map[string]int{}
	for i, s := range n.log {
		transport.Decode(s.plain, &dg)
		p := transport.Packet{Frame: i + 1, Time: epoch.Add(s.at), Client: clientAddr, Server: hostAddr, Size: len(s.plain)}
		if s.from == hostAddr {
			p.Dir = transport.S2C
		}
		for _, a := range tr.Track(p, &dg, info, nil) {
			counts[a.Code.String()]++
		}
		for _, e := range tr.Events() {
			counts[e.Anomaly.Code.String()]++
		}
	}
	for _, e := range tr.Finish() {
		counts[e.Anomaly.Code.String()]++
	}
	var v []string
	for k, c := range counts {
		v = append(v, k+"="+strconv.Itoa(c))
	}
	sort.Strings(v)
	return strings.Join(v, " ")
}

// TestTrackerAgrees: what the endpoint sends is, to the passive tracker,
// a clean session; with the stock bug on, it is seed 001's finding.
func TestTrackerAgrees(t *testing.T) {
	for _, bug := range []bool{false, true} {
		n, h, c := joined(t, Config{}, Config{StockFragmentBug: bug})
		_ = c.Send(c.Peers()[0], make([]byte, 1100), true)
		_ = h.Send(h.Peers()[0], []byte{0x2C, 1, 2, 3}, true)
		n.run(8*time.Second, 100*time.Millisecond)
		_ = c.Disconnect(c.Peers()[0])
		n.run(8*time.Second, 100*time.Millisecond)
		got := trackLog(t, n)
		t.Logf("bug %v: %s", bug, got)
		if !bug && got != "" {
			t.Errorf("tracker anomalies on a clean session: %s", got)
		}
		if bug && !strings.Contains(got, "unacked-fragment-retransmit=1") {
			t.Errorf("tracker did not find the stock bug: %s", got)
		}
	}
}
