package replay

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
)

func load(t *testing.T, path string) *Recording {
	t.Helper()
	rec, err := Load(context.Background(), dissect.Input{Name: path}, dissect.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// selfReplay replays rec's clients against Serve of rec and returns the
// rows of both comparisons.
func selfReplay(t *testing.T, rec *Recording, serverRec *Recording, opt Options) (drive, serve []Row) {
	t.Helper()
	cs, err := rec.Pick(nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, err := serverRec.Pick(nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(serverRec.Runs(scs), conn, opt)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	served := make(chan []*Live, 1)
	go func() { served <- srv.Serve(ctx) }()
	lives, errs := Play(ctx, rec.Runs(cs), srv.Addr(), opt)
	for i, e := range errs {
		if e != nil {
			t.Fatalf("client %d: %v", i, e)
		}
	}
	for _, l := range lives {
		drive = append(drive, Compare(l, FromServer, opt.Speed, Tolerances{})...)
	}
	for _, l := range <-served {
		serve = append(serve, Compare(l, FromClient, opt.Speed, Tolerances{})...)
	}
	return drive, serve
}

func differing(rows []Row) []Row {
	var out []Row
	for _, r := range rows {
		if r.Differs {
			out = append(out, r)
		}
	}
	return out
}

func TestSelfReplay(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []string // the only differing rows: findings the recording explains
	}{
		{"../../testdata/captures/openbc-session-2.pcap", nil},
		// The published excerpts hold round 2's request but not its
		// answer (no fragmented message was published in full).
		{"../../testdata/captures/stock-excerpts.pcap", []string{`checksum request round 2 ("scripts/ships") has no answer in the recording: left unanswered`}},
		{"../../testdata/sample.pcap", nil},
		{"../../testdata/unacked-fragment.pcap", nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rec := load(t, tc.path)
			drive, serve := selfReplay(t, rec, rec, Options{Settle: 300 * time.Millisecond})
			var got []string
			for _, r := range differing(drive) {
				got = append(got, r.Live)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("drive: differing rows %q, want %q", got, tc.want)
			}
			for _, r := range differing(serve) {
				t.Errorf("serve: %+v", r)
			}
			if len(drive) == 0 {
				t.Error("no rows")
			}
		})
	}
}
