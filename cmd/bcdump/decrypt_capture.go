package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/quote"
)

// decryptCapture copies capture in to out frame by frame, deciphering the
// payload of every game datagram on the game ports (GameSpy text is already
// plain) and fixing UDP checksums, so Wireshark shows the plaintext.
func decryptCapture(s *streams, in, out string, ports []uint16) error {
	opt := capture.Options{Ports: ports, AllFrames: true}
	var r *capture.Reader
	var err error
	if in == "-" {
		r, err = capture.NewReader(s.in, "stdin", opt)
	} else {
		r, err = capture.Open(in, opt)
	}
	if err != nil {
		return err
	}
	defer r.Close()
	if r.Plaintext() {
		return fmt.Errorf("%s is marked as written by decrypt -w: its game payloads are deciphered already", r.Name())
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	w, err := capture.NewPlaintextWriterFor(bw, r)
	if err != nil {
		f.Close()
		return err
	}
	var p capture.Packet
	n := 0
	for {
		err = r.Next(&p)
		if err != nil {
			break
		}
		if p.Kind == capture.KindMatched && !dissect.IsGameSpy(p.Payload) && !p.Truncated {
			cipher.Decrypt(p.Payload)
			if err := capture.FixUDPChecksum(&p); err != nil {
				fmt.Fprintf(s.err, "bcdump: %s: frame %d: %v\n", quote.Name(in), p.Frame, errorText(err))
			}
			n++
		}
		if err := w.Write(&p); err != nil {
			f.Close()
			return err
		}
	}
	readErr := err
	if errors.Is(readErr, io.EOF) {
		readErr = nil
	}
	if err := w.Flush(); err != nil && readErr == nil {
		readErr = err
	}
	if err := bw.Flush(); err != nil && readErr == nil {
		readErr = err
	}
	if err := f.Close(); err != nil && readErr == nil {
		readErr = err
	}
	if readErr == nil {
		fmt.Fprintf(s.err, "bcdump: wrote %s: %d game datagrams deciphered\n", quote.Name(out), n)
	}
	return readErr
}
