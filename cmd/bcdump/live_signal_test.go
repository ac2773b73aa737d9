//go:build linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
)

// TestHelperBcdump is bcdump itself when the live signal tests run this
// test binary as a child process (BCDUMP_HELPER=1): the arguments after
// "--" are bcdump's, on the real stdin, stdout and stderr.
func TestHelperBcdump(t *testing.T) {
	if os.Getenv("BCDUMP_HELPER") != "1" {
		t.Skip("the child process of the live signal tests")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(run(args, os.Stdin, os.Stdout, os.Stderr))
}

// liveChild is bcdump live in a child process.
type liveChild struct {
	cmd    *exec.Cmd
	stdout io.ReadCloser
	stderr *syncBuffer
}

func startLiveChild(t *testing.T, args ...string) *liveChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperBcdump$", "--", "live"}, args...)...)
	cmd.Env = append(os.Environ(), "BCDUMP_HELPER=1")
	c := &liveChild{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = c.stderr
	var err error
	if c.stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitCapturing(t, c.stderr, nil)
	return c
}

// wait returns the child's exit status (-1: killed by a signal).
func (c *liveChild) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("live did not stop; stderr %q", c.stderr.String())
	}
	return c.cmd.ProcessState.ExitCode()
}

var capturedRE = regexp.MustCompile(`bcdump: (\d+) datagrams in (\d+) frames captured on lo`)

// checkWritten reads the -w file back: it must be a complete capture
// holding every frame the summary says was captured.
func checkWritten(t *testing.T, path, stderr string, gamePort []string) {
	t.Helper()
	m := capturedRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr lacks the summary:\n%s", stderr)
	}
	frames, _ := strconv.Atoi(m[2])
	r, err := capture.Open(path, capture.Options{AllFrames: true})
	if err != nil {
		t.Fatalf("-w file: %v", err)
	}
	defer r.Close()
	var p capture.Packet
	n := 0
	for {
		err := r.Next(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("-w file after %d frames: %v", n, err)
		}
		n++
	}
	if n != frames || n == 0 {
		t.Errorf("-w file holds %d frames, the summary says %d were captured", n, frames)
	}
	code, out, errs := runCLI(t, nil, append([]string{"read", path}, gamePort...)...)
	if code != 0 || strings.Count(out, "\n") != frames {
		t.Errorf("read -w file: exit %d, %d lines for %d frames; %s", code, strings.Count(out, "\n"), frames, errs)
	}
}

// live -w f | head -1: the reader of stdout goes away after one line; the
// next line written raises SIGPIPE, which stops the capture like Ctrl-C:
// the -w file is complete with every captured frame, the summary is on
// stderr, exit 0.
func TestLiveSIGPIPE(t *testing.T) {
	needLive(t)
	ls := newLoopSession(t)
	path := filepath.Join(tempDir(t), "live.pcapng")
	c := startLiveChild(t, append([]string{"-i", "lo", "--duration", "45s", "-w", path}, ls.gamePort...)...)
	ls.send(t, 0, 1)
	line, err := bufio.NewReader(c.stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, "GameSpy") {
		t.Fatalf("first line %q, %v", line, err)
	}
	c.stdout.Close() // head -1 exits
	ls.send(t, 1, 8)
	if code := c.wait(t); code != 0 {
		t.Fatalf("exit %d (killed by a signal: -1); stderr:\n%s", code, c.stderr.String())
	}
	stderr := c.stderr.String()
	if !strings.Contains(stderr, "dropped by the kernel; ") {
		t.Errorf("stderr lacks the summary line:\n%s", stderr)
	}
	checkWritten(t, path, stderr, ls.gamePort)
}

// SIGINT, SIGTERM and SIGHUP each end a capture with a complete -w file
// and the summary, exit 0.
func TestLiveStopSignals(t *testing.T) {
	needLive(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			ls := newLoopSession(t)
			path := filepath.Join(tempDir(t), "live.pcapng")
			c := startLiveChild(t, append([]string{"-i", "lo", "--duration", "45s", "-w", path}, ls.gamePort...)...)
			const sent = 8
			ls.send(t, 0, sent)
			sc := bufio.NewScanner(c.stdout)
			for range sent {
				if !sc.Scan() {
					t.Fatalf("output ended early: %v; stderr %s", sc.Err(), c.stderr.String())
				}
			}
			if err := c.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			go io.Copy(io.Discard, c.stdout)
			if code := c.wait(t); code != 0 {
				t.Fatalf("exit %d (killed: -1); stderr:\n%s", code, c.stderr.String())
			}
			stderr := c.stderr.String()
			if !strings.Contains(stderr, fmt.Sprintf("bcdump: %d datagrams in %d frames captured on lo", sent, sent)) ||
				!strings.Contains(stderr, "0 dropped by the kernel; 1 flow, ") {
				t.Errorf("stderr lacks the summary:\n%s", stderr)
			}
			checkWritten(t, path, stderr, ls.gamePort)
		})
	}
}

// A -w file that cannot be written stops the capture: the count, then
// the error as the last line, once; no tables; exit 2.
func TestLiveWriteError(t *testing.T) {
	needLive(t)
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	ls := newLoopSession(t)
	c := startLive(t, append([]string{"-i", "lo", "--duration", "45s", "-w", "/dev/full"}, ls.gamePort...)...)
	ls.send(t, 0, 8)
	code := c.wait(t)
	stderr := c.err.String()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if code != exitTrouble || !strings.HasPrefix(last, "bcdump: -w /dev/full: ") || !strings.Contains(last, "no space left on device") {
		t.Errorf("exit %d, last line %q", code, last)
	}
	if strings.Count(stderr, "no space left") != 1 || strings.Contains(stderr, "| game datagrams") ||
		!capturedRE.MatchString(lines[len(lines)-2]) {
		t.Errorf("stderr should be the banner, the count and the error:\n%s", stderr)
	}
}
