package capture

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// A pcap fraction of a second out of range (microseconds >= 10^6,
// nanoseconds >= 10^9) is read as 0, the record's second, and noted
// (issue 38: 0xFFFFFFFF microseconds read as +4.29 s), on the fast path
// and the hardened one, little- and big-endian.
func TestPcapFractionOutOfRange(t *testing.T) {
	for _, nanos := range []bool{false, true} {
		for _, big := range []bool{false, true} {
			for _, hardened := range []bool{false, true} {
				file := pcapFile(t, 1, nanos, big, frames(eth(0x0800, ipUDP(t, cli4, srv4, bcPl))))
				var o binary.ByteOrder = binary.LittleEndian
				if big {
					o = binary.BigEndian
				}
				sec := o.Uint32(file[24:28])
				o.PutUint32(file[28:32], 0xFFFFFFFF)
				r, err := NewReader(bytes.NewReader(file), "frac.pcap", Options{})
				if err != nil {
					t.Fatal(err)
				}
				r.hardened = hardened
				var p Packet
				if err := r.Next(&p); err != nil {
					t.Fatalf("nanos %v big %v hardened %v: %v", nanos, big, hardened, err)
				}
				if want := time.Unix(int64(sec), 0).UTC(); !p.Time.Equal(want) {
					t.Errorf("nanos %v big %v hardened %v: time %v, want the record's second %v", nanos, big, hardened, p.Time, want)
				}
				if !strings.Contains(p.TimeNote, "4294967295 (0xFFFFFFFF)") {
					t.Errorf("note %q", p.TimeNote)
				}
				if err := r.Next(&p); err != io.EOF {
					t.Errorf("then %v", err)
				}
				r.Close()
			}
		}
	}
}

// An OBCTRACE tick times --trace-tick does not overflow (issue 38: tick
// 0xFFFFFFFF of 3 s gave a negative time); past the year 9999 it is
// saturated by the reader.
func TestTickTime(t *testing.T) {
	if got, want := tickTime(0xFFFFFFFF, 3*time.Second), time.Unix(3*0xFFFFFFFF, 0).UTC(); !got.Equal(want) {
		t.Errorf("3 s: %v, want %v", got, want)
	}
	if got, want := tickTime(0xFFFFFFFF, 1500*time.Millisecond), time.Unix(0xFFFFFFFF+0xFFFFFFFF/2, 500e6).UTC(); !got.Equal(want) {
		t.Errorf("1.5 s: %v, want %v", got, want)
	}
	got := tickTime(0xFFFFFFFF, 1<<63-1)
	if got.Before(time.Unix(0, 0)) {
		t.Errorf("the longest tick: %v", got)
	}
	if s, note := saturateTime(got); !s.Equal(latestTime) || note == "" {
		t.Errorf("saturated: %v %q", s, note)
	}
}

// A writer refuses a time its format cannot hold instead of wrapping it
// (issue 38: convert and -w wrapped times after 2554).
func TestWriterRefusesTimeOutOfRange(t *testing.T) {
	for _, c := range []struct {
		format string
		t      time.Time
		ok     bool
	}{
		{"pcapng", time.Date(2554, 7, 21, 23, 34, 33, 0, time.UTC), true},
		{"pcapng", time.Date(2554, 7, 21, 23, 34, 34, 0, time.UTC), false},
		{"pcapng", time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), false},
		{"pcap", time.Date(2106, 2, 7, 6, 28, 15, 0, time.UTC), true},
		{"pcap", time.Date(2106, 2, 7, 6, 28, 16, 0, time.UTC), false},
		{"pcapng", latestTime, false},
	} {
		var b bytes.Buffer
		w, err := NewWriter(&b, c.format, layers.LinkTypeEthernet)
		if err != nil {
			t.Fatal(err)
		}
		err = w.WritePacket(gopacket.CaptureInfo{Timestamp: c.t}, make([]byte, 20))
		if c.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "not written, rather than wrapped") {
			t.Errorf("%s %v: %v", c.format, c.t, err)
		}
	}
}
