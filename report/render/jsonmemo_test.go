package render

import (
	"net/netip"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
)

// A record is the same text whether the writer remembers the records
// before it or not: across seconds, before 1970 and past 9999, for
// repeated, new, evicted and very long addresses.
func TestRecordMemoSameText(t *testing.T) {
	base := time.Date(2026, 11, 21, 17, 12, 8, 999_999_000, time.UTC)
	times := []time.Time{base, base, base.Add(time.Microsecond), base.Add(time.Second), base,
		time.Unix(-1, 250_000_000), time.Unix(-1, 0), time.Unix(0, 0), time.Unix(0, 0),
		time.Date(10000, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		base.In(time.FixedZone("x", 3600)), base}
	addrs := []netip.AddrPort{
		netip.MustParseAddrPort("127.0.0.1:58732"), netip.MustParseAddrPort("127.0.0.1:22101"),
		netip.MustParseAddrPort("10.0.0.2:22101"), netip.MustParseAddrPort("10.0.0.3:22101"),
		netip.MustParseAddrPort("10.0.0.4:22101"), netip.MustParseAddrPort("127.0.0.1:58732"),
		netip.MustParseAddrPort("[fe80::1%eth0]:22101"), netip.MustParseAddrPort("[fe80::1%eth1]:22101"),
		netip.MustParseAddrPort("[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff%averyveryverylongzonename]:65535"),
		netip.MustParseAddrPort("[::ffff:10.0.0.2]:22101"), netip.MustParseAddrPort("10.0.0.2:22101"),
		{},
	}
	var m recordMemo
	for i := range 200 {
		d := &dissect.Datagram{Frame: i + 1, Time: times[i%len(times)], Src: addrs[i%len(addrs)],
			Dst: addrs[(i*7+3)%len(addrs)], Dir: dissect.C2S, Kind: dissect.KindGameSpy, Raw: []byte(`\x`), Plain: []byte(`\x`)}
		got, want := appendDatagramJSONMemo(nil, d, &m), appendDatagramJSON(nil, d)
		if string(got) != string(want) {
			t.Fatalf("record %d with memo:\n%s\nwithout:\n%s", i, got, want)
		}
	}
}
