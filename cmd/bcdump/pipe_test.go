package main

import (
	"bufio"
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest/pcapedit"
)

// A tcpdump -U -w - style writer feeds a pipe slowly: each datagram is
// printed as soon as its record arrives, long before the pipe closes.
func TestReadPipeIsLive(t *testing.T) {
	f := parseSample(t)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer outR.Close()
	var errb bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"read", "-"}, inR, outW, &errb)
		outW.Close()
	}()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	record := func(i int) []byte {
		one := &pcapedit.File{Header: f.Header, Records: f.Records[i : i+1]}
		return one.Bytes()[24:]
	}
	// The header and one record at a time; each line must come before the
	// next record is written.
	if _, err := inW.Write(f.Header[:]); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := inW.Write(record(i)); err != nil {
			t.Fatal(err)
		}
		select {
		case l := <-lines:
			if want := i + 1; !bytes.HasPrefix(bytes.TrimSpace([]byte(l)), []byte{byte('0' + want)}) {
				t.Errorf("line %q, want frame %d", l, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("frame %d written to the pipe, nothing printed after 5s (buffered?)", i+1)
		}
	}
	for i := 3; i < len(f.Records); i++ {
		inW.Write(record(i))
	}
	inW.Close()
	n := 3
	for range lines {
		n++
	}
	if c := <-code; c != 0 || n != len(f.Records) {
		t.Errorf("exit %d, %d lines for %d records; stderr %q", c, n, len(f.Records), errb.String())
	}
}
