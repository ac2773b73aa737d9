//go:build unix

package outfile

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A device or a FIFO is written in place, never replaced by a rename.
func TestNonRegularInPlace(t *testing.T) {
	if err := WriteFile(os.DevNull, []byte("gone"), Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device: %v %v", os.DevNull, fi.Mode(), err)
	}
	dir := tempDir(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := WriteFile(fifo, []byte("through the pipe"), Options{}); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("the FIFO's reader got %q", s)
	}
	// At a name bcdump chose (wireshark install, man) a FIFO is refused
	// before it is opened: with no reader, opening it would block forever
	// (issue 38).
	if err := WriteFile(fifo, []byte("x"), Options{ReplaceLink: true}); err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
		t.Errorf("ReplaceLink into a FIFO: %v", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
	// /dev/stdout, a link to whatever stdout is, reaches it.
	if _, err := os.Stat("/dev/stdout"); err == nil {
		out := filepath.Join(dir, "stdout")
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWrite$")
		cmd.Env = append(os.Environ(), "OUTFILE_HELPER=/dev/stdout")
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = f
		err = cmd.Run()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if s := readString(t, out); s != "complete\n" {
			t.Errorf("/dev/stdout redirected to a file got %q", s)
		}
	}
}

// TestHelperWrite is the child process of the signal test: it writes to
// OUTFILE_HELPER and, with OUTFILE_HANG, says "writing" and waits.
func TestHelperWrite(t *testing.T) {
	path := os.Getenv("OUTFILE_HELPER")
	if path == "" {
		t.Skip("the child process of TestSignalMidWrite")
	}
	f, err := Create(path, Options{})
	if err != nil {
		os.Exit(3)
	}
	if os.Getenv("OUTFILE_HANG") == "" {
		f.Write([]byte("complete\n"))
		if f.Commit() != nil {
			os.Exit(4)
		}
		os.Exit(0)
	}
	f.Write([]byte("half"))
	os.Stderr.WriteString("writing\n")
	select {}
}

// A writer stopped by a signal mid-write leaves the old file and no
// temporary file.
func TestSignalMidWrite(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := tempDir(t)
			out := filepath.Join(dir, "out.pcapng")
			write(t, out, "old")
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWrite$")
			cmd.Env = append(os.Environ(), "OUTFILE_HELPER="+out, "OUTFILE_HANG=1")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stderr).ReadString('\n')
			if line != "writing\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the child said %q", line)
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			// 128 + the signal, every time (issue 38: 2 or 143 at random).
			if want := 128 + int(sig); sig != syscall.SIGKILL && cmd.ProcessState.ExitCode() != want {
				t.Errorf("exit status %d, want %d", cmd.ProcessState.ExitCode(), want)
			}
			if got := readString(t, out); got != "old" {
				t.Errorf("the output holds %q", got)
			}
			names := dirFiles(t, dir)
			if sig == syscall.SIGKILL {
				// Nothing can remove it, but it is never renamed into place.
				if len(names) != 2 || !strings.HasSuffix(names[0], ".tmp") {
					t.Errorf("in the directory: %v", names)
				}
				return
			}
			if len(names) != 1 {
				t.Errorf("left in the directory: %v", names)
			}
		})
	}
}
