package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/report/reporttest"
)

// testdata is the module's testdata directory, relative to this package.
const testdata = "../../testdata"

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// A case is a capture the tests turn into a report.
type reportCase struct {
	name     string
	pcap     func(t testing.TB) []byte
	manifest bool
	golden   bool // has a golden of its data (the big captures do not)
}

func fileCase(name, path string, manifest, golden bool) reportCase {
	return reportCase{name, func(t testing.TB) []byte { return readFile(t, filepath.Join(testdata, path)) }, manifest, golden}
}

var cases = []reportCase{
	fileCase("sample", "sample.pcap", true, true),
	fileCase("stock-excerpts", "captures/stock-excerpts.pcap", true, true),
	fileCase("openbc-session-2", "captures/openbc-session-2.pcap", false, true),
	fileCase("openbc-session-3", "captures/openbc-session-3.pcap", true, false),
	{"checksum-kick", func(t testing.TB) []byte {
		var b bytes.Buffer
		if err := dissecttest.WriteMerged(&b, dissecttest.ChecksumKick()); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}, true, true},
	fileCase("unacked-fragment", "unacked-fragment.pcap", false, true),
	{"rate", func(t testing.TB) []byte {
		var b bytes.Buffer
		if err := dissecttest.WriteMerged(&b, rateSession()); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}, false, false},
}

// rateSession is a flow of known rate: for 5 s the client sends an ACK
// every 100 ms and the host one 50 ms after each: 10 datagrams per second
// each way.
func rateSession() *dissecttest.Session {
	s := dissecttest.New(netip.MustParseAddrPort("192.168.5.20:50500"), netip.MustParseAddrPort("192.168.5.1:22101"),
		time.Date(2026, 1, 7, 12, 0, 0, 0, time.UTC))
	for i := range 50 {
		dt := 50 * time.Millisecond
		if i == 0 {
			dt = 0
		}
		s.AddHex(dt, true, "02 01 01 00 00 00")
		s.AddHex(50*time.Millisecond, false, "01 01 01 00 00 00")
	}
	return s
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func vanilla(t testing.TB) *checksum.Manifest {
	t.Helper()
	m, err := checksum.LoadFile(filepath.Join(testdata, "vanilla-1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// build runs a case through a Session into a Builder, as `bcdump report`
// does, and renders the page.
func build(t testing.TB, c reportCase) (*Data, []byte) {
	t.Helper()
	opt := Options{Sources: []string{c.name + ".pcap"}}
	var dopt dissect.Options
	if c.manifest {
		opt.Manifest, opt.ManifestName = vanilla(t), "vanilla-1.1.json"
		dopt.Manifest = opt.Manifest
	}
	r, err := capture.NewReader(bytes.NewReader(c.pcap(t)), c.name, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := New(opt)
	s := dissect.NewSession(dissect.SessionOptions{Options: dopt, Mode: dissect.Serial})
	if err := s.Run(context.Background(), r, b); err != nil {
		t.Fatal(err)
	}
	d := b.Data()
	var page bytes.Buffer
	if err := Render(&page, d); err != nil {
		t.Fatal(err)
	}
	return d, page.Bytes()
}

var blobRE = regexp.MustCompile(`(?s)<script type="application/json" id="bcdump-data">(.*?)</script>`)

// embedded returns the JSON the page embeds.
func embedded(t testing.TB, page []byte) []byte {
	t.Helper()
	m := blobRE.FindSubmatch(page)
	if m == nil {
		t.Fatal("the page embeds no script#bcdump-data")
	}
	return m[1]
}

// numberList matches an indented JSON array of numbers, to fold it onto
// one line: the goldens stay readable with a thousand-column series.
var numberList = regexp.MustCompile(`\[\s*-?[0-9][0-9.e+-]*(?:,\s*-?[0-9][0-9.e+-]*)*\s*\]`)

func pretty(t testing.TB, blob []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, blob, "", " "); err != nil {
		t.Fatalf("embedded JSON: %v", err)
	}
	b := numberList.ReplaceAllFunc(out.Bytes(), func(m []byte) []byte {
		return []byte(strings.Join(strings.Fields(string(m)), ""))
	})
	return append(b, '\n')
}

// The data each page embeds, against testdata/golden/report-NAME.json.
func TestGolden(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, page := build(t, c)
			blob := embedded(t, page)
			var back Data
			if err := json.Unmarshal(blob, &back); err != nil {
				t.Fatalf("embedded JSON does not read back: %v", err)
			}
			if back.Datagrams != d.Datagrams || len(back.Ladders) != len(d.Ladders) {
				t.Fatalf("embedded JSON differs from the data")
			}
			if c.golden {
				reporttest.Golden(t, filepath.Join(testdata, "golden", c.name+".report.json"), pretty(t, blob), *update, "./report/htmlreport")
			}
		})
	}
}
