package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/replay"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// startRecordedServer plays capture's server half on a loopback port
// until the test ends.
func startRecordedServer(t *testing.T, capture string) string {
	t.Helper()
	transporttest.NeedUDP(t)
	rec, err := replay.Load(context.Background(), dissect.Input{Name: capture}, dissect.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := rec.Pick(nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	srv := replay.NewServer(rec.Runs(cs), conn, replay.Options{Settle: 300 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; srv.Close() })
	return srv.Addr().String()
}

func TestReplayCommand(t *testing.T) {
	capture := testdata + "/captures/openbc-session-2.pcap"
	dir := tempDir(t)
	out := filepath.Join(dir, "live.pcapng")
	addr := startRecordedServer(t, capture)
	code, stdout, stderr := runCLI(t, nil, "replay", capture, "--server", addr, "--speed", "max", "--settle", "300ms", "-w", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "replay: the live side matches the recording") {
		t.Errorf("no verdict line:\n%s", stdout)
	}
	// The live run reads back as a game: every replayed player entered.
	_, port, _ := net.SplitHostPort(addr)
	code, session, stderr := runCLI(t, nil, "session", "-p", port, out)
	if code != 0 {
		t.Fatalf("session: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"JoinFlowTest", "Player1", "Player2", "Survivor", "Leaver"} {
		if !regexp.MustCompile(`(?m)^  ` + name + ` \(peer \d+\): entered at `).MatchString(session) {
			t.Errorf("session of the replay: %s not entered:\n%s", name, session)
		}
	}
}

func TestReplayJSON(t *testing.T) {
	capture := testdata + "/sample.pcap"
	addr := startRecordedServer(t, capture)
	code, stdout, stderr := runCLI(t, nil, "replay", capture, "--server", addr, "--speed", "max", "--settle", "300ms", "-F", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var doc replay.Document
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || doc.Mode != "client" || len(doc.Clients) != 1 || doc.Clients[0].Name != "Cady2" || len(doc.Rows) == 0 || doc.Differences != 0 {
		t.Errorf("document: %+v", doc)
	}
}

func TestReplayErrors(t *testing.T) {
	transporttest.NeedUDP(t)
	// A port nothing listens on: exit 2 after --connect-timeout, not a hang.
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	dead := c.LocalAddr().String()
	c.Close()
	capture := testdata + "/sample.pcap"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", dead, "--connect-timeout", "300ms"}, "no answer to Connect within 300ms"},
		{nil, "give --server HOST:PORT to drive a server, or --as-server"},
		{[]string{"--server", dead, "--as-server"}, "give --server HOST:PORT"},
		{[]string{"--server", dead, "--speed", "0"}, "--speed 0: want a factor"},
		{[]string{"--server", dead, "--client", "Nobody"}, `no recorded client matches ["Nobody"] (the recording has Cady2 (peer 2, `},
		{[]string{"--server", dead, "-F", "xml"}, `-F, --format must be table or json, not "xml"`},
		{[]string{"--server", dead, "--checksums", "manifest"}, "--checksums manifest needs --manifest FILE or --game-dir DIR"},
		{[]string{"--server", dead, "--listen", "127.0.0.1:1"}, "--listen goes with --as-server"},
		{[]string{"--server", dead, "-w", capture}, "is an input of this run"},
	} {
		code, _, stderr := runCLI(t, nil, append([]string{"replay", capture}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestReplayRealServer drives the server at BCDUMP_TEST_SERVER with the
// first client of openbc-session-2 (a lone join: connect, five checksum
// rounds, settings, mission). Which rows differ depends on the server;
// the test holds it to answering the join: the Connect, then checksum
// requests.
func TestReplayRealServer(t *testing.T) {
	server := os.Getenv("BCDUMP_TEST_SERVER")
	if server == "" {
		t.Skip("BCDUMP_TEST_SERVER=host:port names no server to replay against")
	}
	capture := testdata + "/captures/openbc-session-2.pcap"
	code, stdout, stderr := runCLI(t, nil, "replay", capture, "--server", server, "--client", "JoinFlowTest",
		"--speed", "max", "--gate", "2s", "--settle", "1s", "-F", "json")
	if code == 2 {
		t.Fatalf("replay could not run: %s", stderr)
	}
	var doc replay.Document
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Clients) != 1 || doc.Clients[0].LivePeerID == 0 {
		t.Fatalf("no peer id from the server: %+v", doc.Clients)
	}
	asked := false
	for _, r := range doc.Rows {
		if r.Phase == "checksum" && r.Item == "messages equal" && !strings.HasPrefix(r.Live, "0 of 0") {
			asked = true
		}
		if r.Differs {
			t.Logf("differs: %s %s %s: recorded %s, live %s", r.Phase, r.Kind, r.Item, r.Recorded, r.Live)
		}
	}
	if !asked {
		t.Errorf("the server sent no checksum request")
	}
}

// bcdump replay --as-server plays a capture's server half, and bcdump
// replay --server against it compares equal on both sides.
func TestReplayAsServerCommand(t *testing.T) {
	transporttest.NeedUDP(t)
	capture := testdata + "/sample.pcap"
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	addr := c.LocalAddr().String()
	c.Close()
	type result struct {
		code        int
		out, stderr string
	}
	served := make(chan result, 1)
	go func() {
		code, out, stderr := runCLI(t, nil, "replay", capture, "--as-server", "--listen", addr, "--speed", "max", "--settle", "500ms")
		served <- result{code, out, stderr}
	}()
	var code int
	var stdout, stderr string
	for try := 0; try < 20; try++ { // the server may take a moment to listen
		code, stdout, stderr = runCLI(t, nil, "replay", capture, "--server", addr, "--speed", "max", "--settle", "300ms", "--connect-timeout", "500ms")
		if code != 2 {
			break
		}
	}
	if code != 0 {
		t.Fatalf("client: exit %d\n%s\n%s", code, stdout, stderr)
	}
	select {
	case r := <-served:
		if r.code != 0 || !strings.Contains(r.out, "replay: the live side matches the recording") || !strings.Contains(r.stderr, "playing the recorded server on "+addr) {
			t.Errorf("as-server: exit %d\n%s\n%s", r.code, r.out, r.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("--as-server did not stop after playing its one conversation")
	}
}
