package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/transport"
)

// seed001Line is the part of a `bcdump read --format json` line the seed
// 001 test reads: datagrams, and the closing summary of end events.
type seed001Line struct {
	Kind     string `json:"kind"`
	Frame    int    `json:"frame"`
	Messages []struct {
		Seq         int  `json:"seq"`
		Fragment    bool `json:"fragment"`
		FragIdx     int  `json:"frag_idx"`
		Retransmit  bool `json:"retransmit"`
		Reassembled *struct {
			Len        int            `json:"len"`
			Frags      int            `json:"frags"`
			OpcodeName string         `json:"opcode_name"`
			Fields     map[string]any `json:"fields"`
		} `json:"reassembled"`
	} `json:"messages"`
	Anomalies []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Frame    int    `json:"frame"`
		Msg      *int   `json:"msg"`
		Client   string `json:"client"`
	} `json:"anomalies"`
}

// writeSeed001 writes a variant of the generated seed 001 session to a
// temporary pcap and returns its path, the frame of the first send of the
// stuck message, and the time from that send to its last resend.
func writeSeed001(t *testing.T, v dissecttest.Seed001Acks) (path string, firstFrame int, span time.Duration) {
	t.Helper()
	s := dissecttest.Seed001(v)
	path = filepath.Join(tempDir(t), v.String()+".pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WritePcap(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var first, last time.Time
	var dg transport.Datagram
	for i, d := range s.Datagrams {
		transport.Decode(d.Plain, &dg)
		for _, m := range dg.Messages {
			if d.C2S && m.Type == transport.TypeData && m.Fragment && m.Seq == dissecttest.Seed001Seq {
				if firstFrame == 0 {
					firstFrame, first = i+1, d.Time
				}
				last = d.Time
			}
		}
	}
	return path, firstFrame, last.Sub(first)
}

// Issue 3's acceptance test: the project's own reproduction of seed 001
// gives exactly one unacked-fragment-retransmit for the stuck message, with
// the right counts and span, and the response is delivered once; the
// variants give retransmit-unacked and ack-mismatch instead.
func TestReadSeed001(t *testing.T) {
	resends := dissecttest.Seed001Frags * dissecttest.Seed001Resends
	tests := []struct {
		variant dissecttest.Seed001Acks
		code    string
		text    func(span time.Duration) []string
	}{
		{dissecttest.Seed001FragmentAcks, "unacked-fragment-retransmit", func(span time.Duration) []string {
			return []string{"c2s high seq 2 (3 fragments", fmt.Sprintf("retransmitted %d times", resends),
				"ACKed all 3 fragments with matching fragment ACKs", "resends span " + span.String(), "seed 001"}
		}},
		{dissecttest.Seed001AcksLost, "retransmit-unacked", func(span time.Duration) []string {
			return []string{"c2s high seq 2 (3 fragments", fmt.Sprintf("retransmitted %d times", resends),
				span.String() + " after the first send", "no matching ACK was seen"}
		}},
		{dissecttest.Seed001AcksWithoutFragFlag, "ack-mismatch", func(time.Duration) []string {
			return []string{"c2s high seq 2 (3 fragments", fmt.Sprintf("%d ACKs for its seq had the wrong fragment status", resends+3),
				"ACK without the fragment flag", "0 of 3 sent pieces got a matching ACK", fmt.Sprintf("%d retransmissions", resends)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.variant.String(), func(t *testing.T) {
			path, firstFrame, span := writeSeed001(t, tt.variant)
			if span < 20*time.Second || span > 21*time.Second {
				t.Fatalf("scenario spans %v", span)
			}
			code, out, errs := runCLI(t, nil, "read", "--format", "json", path)
			if code != exitOK || errs != "" {
				t.Fatalf("code %d err %q", code, errs)
			}
			var events, delivered, retransmits, resent int
			sc := bufio.NewScanner(strings.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var l seed001Line
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatalf("%v: %s", err, sc.Text())
				}
				if l.Kind == "summary" {
					for _, a := range l.Anomalies {
						events++
						if a.Code != tt.code || a.Severity != "warn" || a.Frame != firstFrame || a.Msg == nil || a.Client != "192.168.1.21:2656" {
							t.Errorf("event %+v, want %s on frame %d", a, tt.code, firstFrame)
							continue
						}
						for _, w := range tt.text(span) {
							if !strings.Contains(a.Message, w) {
								t.Errorf("event message lacks %q:\n%s", w, a.Message)
							}
						}
					}
					continue
				}
				for _, a := range l.Anomalies {
					if a.Code != "retransmit" || a.Severity != "note" {
						t.Errorf("frame %d: unexpected anomaly %+v", l.Frame, a)
					}
					retransmits++
				}
				for _, m := range l.Messages {
					if m.Retransmit {
						resent++
					}
					if r := m.Reassembled; r != nil {
						delivered++
						if r.Frags != 3 || r.Len != 832 || r.OpcodeName != "ChecksumResp" || r.Fields["round"] != 2.0 {
							t.Errorf("frame %d: reassembled %d bytes from %d frags, %s %v", l.Frame, r.Len, r.Frags, r.OpcodeName, r.Fields["round"])
						}
					}
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if events != 1 || delivered != 1 || retransmits != resends || resent != resends {
				t.Errorf("%d end events (want 1), delivered %d times (want 1), %d retransmit notes and %d marked copies (want %d)",
					events, delivered, retransmits, resent, resends)
			}

			// bcdump stats counts the anomaly once, in the totals and the flow.
			code, out, errs = runCLI(t, nil, "stats", "-F", "json", path)
			if code != exitOK {
				t.Fatalf("stats: code %d err %q", code, errs)
			}
			d := parseStats(t, out)
			count := func(as []statsAnomaly, code string) int {
				n := 0
				for _, a := range as {
					if a.Code == code {
						n += a.Count
					}
				}
				return n
			}
			if len(d.Flows) != 1 {
				t.Fatalf("%d flows", len(d.Flows))
			}
			f := d.Flows[0]
			if count(d.Anomalies, tt.code) != 1 || count(f.Anomalies, tt.code) != 1 ||
				count(d.Anomalies, "retransmit") != resends || len(d.Anomalies) != 2 {
				t.Errorf("stats anomalies %+v, flow %+v", d.Anomalies, f.Anomalies)
			}
			if f.C2S.Retransmissions != resends || f.C2S.Reassembled != 1 || f.PlayerName != "Cady2" {
				t.Errorf("flow %+v", f)
			}
			for _, o := range d.Opcodes {
				if o.Name == "ChecksumResp" && (o.C2S != 5 || o.S2C != 0) {
					t.Errorf("ChecksumResp counted %d/%d, want the 5 rounds once each", o.C2S, o.S2C)
				}
			}
		})
	}
}
