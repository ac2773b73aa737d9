package main

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// dnsCapture writes n DNS-looking queries and answers (UDP port 53) and
// nothing on the game port.
func dnsCapture(t *testing.T, n int) string {
	t.Helper()
	s := dissecttest.New(netip.MustParseAddrPort("192.168.1.20:40000"), netip.MustParseAddrPort("192.168.1.1:53"), dissecttest.SampleStart)
	for i := range n {
		q := []byte{byte(i), 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1}
		s.Add(time.Millisecond, i%2 == 0, q)
	}
	path := filepath.Join(tempDir(t), "dns.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := s.WritePcap(f); err != nil {
		t.Fatal(err)
	}
	return path
}

// A capture without traffic on the game ports says on stderr what it
// held, on every command that decodes captures; the exit status stays 0
// (diff: 0, both sides empty alike).
func TestNoGameTraffic(t *testing.T) {
	dns := dnsCapture(t, 20)
	out := filepath.Join(tempDir(t), "r.html")
	want := "bcdump: " + dns + ": 20 UDP datagrams, none on port 22101; other ports: 53 (20); none of them carries BC traffic\n"
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"read", dns}, want},
		{[]string{"read", "-F", "json", dns}, want},
		{[]string{"stats", dns}, want},
		{[]string{"stats", "-b", dns}, want},
		{[]string{"session", dns}, want},
		{[]string{"profile", dns}, want},
		{[]string{"report", "-o", out, dns}, want},
		{[]string{"read", "-p", "5000", dns}, "bcdump: " + dns + ": 20 UDP datagrams, none on ports 5000,22101; other ports: 53 (20); none of them carries BC traffic\n"},
		{[]string{"read", "-p", "auto", dns}, "bcdump: " + dns + ": -p auto: no BC traffic on other UDP ports\nbcdump: " + dns + ": 20 UDP datagrams, none on port 22101; other ports: 53 (20)\n"},
		{[]string{"diff", dns, dns}, want},
	} {
		t.Run(strings.Join(tt.args[:len(tt.args)-1], " "), func(t *testing.T) {
			code, _, errs := runCLI(t, nil, tt.args...)
			if tt.args[0] == "report" {
				errs = dropWrote(errs)
			}
			if code != 0 || errs != tt.err {
				t.Errorf("exit %d, stderr %q\nwant %q", code, errs, tt.err)
			}
		})
	}
}

// dropWrote drops report's "wrote" line.
func dropWrote(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.Contains(l, "wrote") && l != "" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}
