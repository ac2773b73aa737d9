//go:build linux

package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
)

// countFrames reads a capture to its end (or its first error).
func countFrames(path string) int {
	r, err := capture.Open(path, capture.Options{AllFrames: true})
	if err != nil {
		return 0
	}
	defer r.Close()
	var p capture.Packet
	n := 0
	for r.Next(&p) == nil {
		n++
	}
	return n
}

// live -w writes a temporary file beside the output and renames it into
// place when live stops: killed hard mid-capture, the old file is as it
// was and the frames so far are in the temporary file, a readable capture.
func TestLiveWriteKilled(t *testing.T) {
	needLive(t)
	ls := newLoopSession(t)
	dir := tempDir(t)
	path := filepath.Join(dir, "live.pcapng")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startLiveChild(t, append([]string{"-i", "lo", "--duration", "45s", "-w", path}, ls.gamePort...)...)
	const sent = 4
	ls.send(t, 0, sent)
	sc := bufio.NewScanner(c.stdout)
	for range sent {
		if !sc.Scan() {
			t.Fatalf("output ended early: %v; stderr %s", sc.Err(), c.stderr.String())
		}
	}
	go io.Copy(io.Discard, c.stdout)
	// The frames reach the temporary file on the next tick (200 ms).
	var tmp string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		names, _ := filepath.Glob(filepath.Join(dir, ".live.pcapng.*.tmp"))
		if len(names) == 1 && countFrames(names[0]) >= sent {
			tmp = names[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no temporary file with %d frames: %v", sent, names)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("while capturing, %s holds %q", path, got)
	}
	c.cmd.Process.Signal(syscall.SIGKILL)
	c.wait(t)
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after SIGKILL, %s holds %q", path, got)
	}
	if n := countFrames(tmp); n < sent {
		t.Errorf("the temporary file holds %d frames, want %d", n, sent)
	}
	if strings.Contains(c.stderr.String(), "panic") {
		t.Errorf("stderr: %s", c.stderr.String())
	}
}
