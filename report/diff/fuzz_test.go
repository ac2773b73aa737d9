package diff

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// FuzzLoadJSON feeds arbitrary bytes to the JSON trace reader: it must
// return a conversation or an error, never panic, and what it loads must
// equal itself and render in both formats.
func FuzzLoadJSON(f *testing.F) {
	// Short lines of the sample's trace (big seeds make the fuzzer's
	// minimization crawl).
	var short [][]byte
	for _, l := range bytes.SplitAfter(traceOf(f, samplePcap(f)), []byte("\n")) {
		if len(l) < 1200 {
			short = append(short, l)
		}
	}
	f.Add(bytes.Join(short, nil))
	f.Add([]byte(`{"frame":1,"time":"2026-01-02T20:00:00Z","src":"1.2.3.4:5","dst":"1.2.3.5:22101","dir":"c2s","kind":"gamespy","len":8,"text":"\\status\\","gamespy":{"status":""}}`))
	f.Add([]byte(`{"frame":2,"time":"2026-01-02T20:00:00Z","src":"a","dst":"b","dir":"s2c","kind":"game","messages":[{"type":50,"reliable":true,"seq":65535,"opcode":44,"fields":{"a":[1,{"b":[]}],"a":2,"a_name":"x"}},{"type":50,"reliable":true,"seq":0,"fragment":true,"frag_idx":1,"reassembled":{"frags":2,"fields":{}}},{"type":1,"seq":0,"ack":"matched"},{"type":50,"retransmit":true,"seq":0}]}`))
	f.Add([]byte("{\"kind\":\"summary\",\"anomalies\":[]}\n\n{"))
	f.Add([]byte(`{"kind":"game","dir":"c2s","time":"x"}`))
	// Two flows, reliable messages and their ACKs: with the small options
	// below, windows of 4 messages and the second flow merged.
	synth, err := os.ReadFile(synthTrace(f, tempDir(f), 12, true))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append(synth, bytes.ReplaceAll(synth, []byte("50000"), []byte("50001"))...))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := LoadJSON("fuzz", bytes.NewReader(data), nil)
		if err != nil {
			return
		}
		res := Compare(c, c, Options{Context: 2, Timing: true, Retransmits: true, Addresses: true})
		if !res.Equal() {
			t.Fatalf("a trace differs from itself: %+v", res.Summary)
		}
		// Small windows and one flow a side (the rest merged) take the
		// windowed alignment and the merged flow through the same input.
		small := Options{Context: 1, Retransmits: true, Window: 4, MaxFlows: 1, SpillBytes: 64}
		m, err := LoadJSON("fuzz", bytes.NewReader(data), &small)
		if err != nil {
			t.Fatalf("loads with the defaults but not with small options: %v", err)
		}
		defer m.Close()
		res = Compare(m, m, small)
		if !res.Equal() {
			t.Fatalf("a trace differs from itself in small windows: %+v", res.Summary)
		}
		res.Close()
		res = Compare(c, m, small)
		if err := res.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteJSON(io.Discard); err != nil {
			t.Fatal(err)
		}
		res.Close()
		empty := &Conversation{Name: "empty", Format: "json"}
		res = Compare(c, empty, Options{Context: 1})
		if err := res.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteJSON(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}
