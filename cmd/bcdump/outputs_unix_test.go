//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// An output that is a FIFO (or a device, or a terminal) is written in
// place: it is still a FIFO afterwards and its reader got the output.
func TestWritersFIFOInPlace(t *testing.T) {
	cases := writerCases(t)
	game := fakeGame(t)
	cases = append(cases,
		writerCase{"manifest generate -o", func(_, out string) []string {
			return []string{"manifest", "generate", game, "-o", out}
		}, samplePcap},
		writerCase{"decrypt -w symlink to FIFO", func(in, out string) []string {
			link := out + ".link"
			if err := symlink(out, link); err != nil {
				t.Fatal(err)
			}
			return []string{"decrypt", in, "-w", link}
		}, samplePcap})
	for _, wc := range cases {
		if wc.name == "wireshark install" {
			continue // a name bcdump chose: a FIFO there is refused (TestWiresharkInstallFIFO)
		}
		t.Run(wc.name, func(t *testing.T) {
			dir := tempDir(t)
			in, _ := copyInput(t, wc.input, dir)
			out := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(out, 0o600); err != nil {
				t.Skip("no FIFO:", err)
			}
			got := make(chan int, 1)
			go func() {
				f, err := os.Open(out)
				if err != nil {
					got <- -1
					return
				}
				n, _ := io.Copy(io.Discard, f)
				f.Close()
				got <- int(n)
			}()
			code, _, errs := runCLI(t, nil, wc.args(in, out)...)
			if code == exitTrouble {
				t.Fatalf("exit 2: %s", errs)
			}
			if n := <-got; n <= 0 {
				t.Errorf("the FIFO's reader got %d bytes", n)
			}
			if fi, err := os.Lstat(out); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
			}
		})
	}
}
