package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/quote"
)

// decryptCapture copies capture in to out frame by frame, deciphering the
// payload of every game datagram on the game ports (GameSpy text is already
// plain) and fixing UDP checksums, so Wireshark shows the plaintext.
func decryptCapture(s *streams, in, out string, ports []uint16) error {
	if err := s.reading(in); err != nil {
		return err
	}
	rules := s.outputRules()
	if out != "-" {
		if err := outfile.Check(out, rules); err != nil {
			return fmt.Errorf("-w: %w", err)
		}
	}
	r, err := openCaptureWith(s, in, capture.Options{Ports: ports, AllFrames: true})
	if err != nil {
		return err
	}
	defer r.Close()
	if r.Plaintext() {
		return fmt.Errorf("%s is marked as written by decrypt -w: its game payloads are deciphered already", r.Name())
	}
	var dst io.Writer = s.out
	if out != "-" {
		f, err := outfile.Create(out, rules)
		if err != nil {
			return fmt.Errorf("-w: %w", err)
		}
		defer f.Abort() // a capture that cannot be read to its end leaves no output
		dst = f
	}
	bw := bufio.NewWriter(dst)
	w, err := capture.NewPlaintextWriterFor(bw, r)
	if err != nil {
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
	if readErr != nil {
		return readErr
	}
	if f, ok := dst.(*outfile.File); ok {
		if err := f.Commit(); err != nil {
			return fmt.Errorf("-w %s: %w", out, err)
		}
	}
	if out == "-" {
		out = "stdout"
	}
	fmt.Fprintf(s.err, "bcdump: wrote %s: %d game datagrams deciphered\n", quote.Name(out), n)
	return nil
}
