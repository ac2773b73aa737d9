package stats

import (
	"bytes"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// The hand-rendered stats tables are byte for byte what tablewriter
// renders (newTable), and cells that are not plain ASCII fall back to it.
func TestStatsTableMatchesTablewriter(t *testing.T) {
	pal := render.NewPalette(true)
	red := pal.PaintSev("anomaly x (error)", "error")
	if red == "anomaly x (error)" {
		t.Fatal("the palette paints nothing")
	}
	tests := []struct {
		name   string
		header []string
		rows   [][4]string
	}{
		{"totals", []string{"totals", "c2s", "s2c", "total"}, [][4]string{{"game datagrams", "2518", "1804", "4322"}, {"flows", "", "", "3"}}},
		{"wide numbers", []string{"traffic", "c2s", "s2c", "total"}, [][4]string{{"bytes", "18446744073709551615", "0", "18446744073709551615"}}},
		{"no rows", []string{"traffic", "c2s", "s2c", "total"}, nil},
		{"coloured label", []string{"traffic", "c2s", "s2c", "total"}, [][4]string{{red, "", "", "7"}, {"datagrams", "1", "2", "3"}}},
		{"long label", []string{"t", "c2s", "s2c", "total"}, [][4]string{{"anomaly checksum-missing-complete-and-a-much-longer-code-name-than-any (error)", "", "", "1"}}},
		{"non-ASCII falls back", []string{"traffic", "c2s", "s2c", "total"}, [][4]string{{"Überträgung ✓", "1", "", "1"}}},
		{"control byte falls back", []string{"traffic", "c2s", "s2c", "total"}, [][4]string{{"a\tb", "1", "", "1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, want bytes.Buffer
			st := newStatsTable(&got, tt.header...)
			st.rows = tt.rows
			if err := st.render(); err != nil {
				t.Fatal(err)
			}
			ref := newTable(&want, statsAlign, tt.header[0], tt.header[1], tt.header[2], tt.header[3])
			for _, r := range tt.rows {
				if err := ref.Append(r[0], r[1], r[2], r[3]); err != nil {
					t.Fatal(err)
				}
			}
			if err := ref.Render(); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("got:\n%s\nwant:\n%s", got.String(), want.String())
			}
		})
	}
}

// manyFlowStats is a Stats holding n flows like those of session 3.
func manyFlowStats(n int) *Stats {
	s := NewStats()
	flows := make([]transport.FlowStats, n)
	at := time.Date(2026, 11, 21, 17, 12, 8, 0, time.UTC)
	for i := range flows {
		flows[i] = transport.FlowStats{
			ID: transport.FlowID(i + 1), Client: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 38561),
			Server: netip.MustParseAddrPort("127.0.0.1:22101"), PeerID: 2, HasPeerID: true, PeerIDFrom: "connect",
			PlayerName: "Bot0", First: at, Last: at.Add(21 * time.Second), Datagrams: [2]uint64{842, 599},
			Bytes: [2]uint64{22675, 43200}, Acks: [2]uint64{166, 74}, Reliable: [2]uint64{74, 175}, Keepalives: [2]uint64{0, 20},
			RTT: [2]transport.RTT{{Count: 74, P50: 11 * time.Millisecond, P95: 23 * time.Millisecond, Max: 295 * time.Millisecond},
				{Count: 166, P50: 10 * time.Millisecond, P95: 22 * time.Millisecond, Max: 120 * time.Millisecond}},
			Anomalies: map[anomaly.Code]int{anomaly.PayloadMalformed: 141, anomaly.SeqReuse: 1, anomaly.ChecksumDirHash: 3},
			Finished:  true, Flows: 1,
		}
	}
	s.AddFlows("many.pcap", flows)
	return s
}

// BenchmarkStatsWriteTable is the table `bcdump stats` prints for 3,000
// flows (issue 17: under a second); one op is the whole output.
func BenchmarkStatsWriteTable(b *testing.B) {
	for _, n := range []int{3, 3000} {
		b.Run(fmt.Sprintf("flows=%d", n), func(b *testing.B) {
			s := manyFlowStats(n)
			var out bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				out.Reset()
				if err := s.WriteTable(&out, render.NewPalette(false)); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(out.Len()))
		})
	}
}
