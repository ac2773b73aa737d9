package stats

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Events a Dissector did not list still count in the totals.
func TestStatsAddUnlisted(t *testing.T) {
	s := NewStats()
	if err := s.Finish([]dissect.Event{{Anomaly: anomaly.Anomaly{Code: anomaly.RetransmitUnacked}}}); err != nil {
		t.Fatal(err)
	}
	s.AddUnlisted(map[anomaly.Code]int{anomaly.RetransmitUnacked: 41})
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Anomalies []struct {
			Code  string `json:"code"`
			Count int    `json:"count"`
		} `json:"anomalies"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Anomalies) != 1 || doc.Anomalies[0].Code != "retransmit-unacked" || doc.Anomalies[0].Count != 42 {
		t.Errorf("anomalies %+v, want retransmit-unacked x42", doc.Anomalies)
	}
}
