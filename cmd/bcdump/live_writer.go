package main

import (
	"fmt"
	"os"

	"github.com/bcdump/bcdump/dissect/capture"
)

// liveWriter is the -w file of bcdump live: pcapng, flushed on every
// status tick so that a capture killed hard still leaves a readable file.
type liveWriter struct {
	name string
	f    *os.File
	w    *capture.Writer
}

func openLiveWriter(name string, src *capture.Live) (*liveWriter, error) {
	if name == "" {
		return nil, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	w, err := capture.NewWriter(f, "pcapng", src.LinkType())
	if err != nil {
		f.Close()
		return nil, err
	}
	return &liveWriter{name: name, f: f, w: w}, nil
}

func (l *liveWriter) fail(err error) error { return fmt.Errorf("-w %s: %w", l.name, err) }

func (l *liveWriter) close() error {
	err := l.w.Flush()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return l.fail(err)
	}
	return nil
}
