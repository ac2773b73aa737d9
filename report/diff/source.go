package diff

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/render"
)

// Load reads one side of a diff from r: a capture (pcap or pcapng; gzip,
// xz or zstd allowed) or a saved `bcdump read --format json` trace
// (likewise compressed or not),
// told apart by content: a trace's first non-blank byte is '{'. opt
// configures the dissector for captures (game ports; a manifest only adds
// labels, which are not compared).
func Load(name string, r io.Reader, opt dissect.Options) (*Conversation, error) {
	return loadSource(name, r, opt, nil, nil)
}

// Keep selects the records of a saved trace by their JSON (one object, as
// `read -F json` prints it): diff -Y passes a display filter's Match. nil
// keeps every record.
type Keep func(record []byte) bool

// LoadFiltered is Load keeping only the records the display filter f
// selects (all when f is nil): a capture's datagrams are tested decoded
// (query.Eval), a trace's records by their JSON (Match); the answer is
// the same.
func LoadFiltered(name string, r io.Reader, opt dissect.Options, f *filter.Filter) (*Conversation, error) {
	if f == nil {
		return loadSource(name, r, opt, nil, nil)
	}
	return loadSource(name, r, opt, f.Match, query.NewEval(f).Datagram)
}

// loadSource is Load keeping the records keep selects (traces) and the
// datagrams dkeep selects (captures); nil keeps all.
func loadSource(name string, r io.Reader, opt dissect.Options, keep Keep, dkeep func(*dissect.Datagram) bool) (*Conversation, error) {
	br, _, zc, err := capture.Decompress(bufio.NewReaderSize(r, 64<<10), name)
	if err != nil {
		return nil, err
	}
	defer zc.Close()
	isJSON, err := looksLikeJSON(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if isJSON {
		return loadJSON(name, br, keep)
	}
	cr, err := capture.NewReader(br, name, capture.Options{Ports: opt.Ports, Trace: opt.Trace})
	if err != nil {
		return nil, err
	}
	defer cr.Close()
	opt.Plain = opt.Plain || cr.Plaintext() // decrypt -w copies, packet_trace.log, OBCTRACE
	return loadCapture(name, cr, opt, dkeep)
}

// looksLikeJSON peeks past leading white space for a '{'.
func looksLikeJSON(br *bufio.Reader) (bool, error) {
	for n := 1; n <= 4096; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			if err == nil || err == io.EOF {
				err = errors.New("empty input: neither a capture nor a JSON trace")
			}
			return false, err
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true, nil
		}
		return false, nil
	}
	return false, nil
}

// LoadJSON reads a JSON Lines trace written by `bcdump read --format json`.
func LoadJSON(name string, r io.Reader) (*Conversation, error) {
	return loadJSON(name, r, nil)
}

func loadJSON(name string, r io.Reader, keep Keep) (*Conversation, error) {
	b := newBuilder(name, "json")
	if err := readTrace(r, keep, b.add); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b.finish(), nil
}

// LoadCapture decodes a capture from src through a dissect.Session. Each
// datagram is rendered by the JSON reporter's own encoder and parsed back,
// line by line, so that a capture and its saved trace give the same
// conversation by construction, in memory bounded by one datagram plus the
// conversation itself. End-of-capture events are not part of it.
func LoadCapture(name string, src capture.Source, opt dissect.Options) (*Conversation, error) {
	return loadCapture(name, src, opt, nil)
}

func loadCapture(name string, src capture.Source, opt dissect.Options, keep func(*dissect.Datagram) bool) (*Conversation, error) {
	b := newBuilder(name, "capture")
	var (
		line []byte
		rec  record
	)
	err := dissect.NewSession(dissect.SessionOptions{Options: opt}).Run(context.Background(), src, dissect.SinkFuncs{
		OnDatagram: func(dg *dissect.Datagram) error {
			if keep != nil && !keep(dg) {
				return nil
			}
			line = render.AppendDatagramJSON(line[:0], dg)
			ok, err := parseRecord(line, &rec)
			if err != nil {
				return fmt.Errorf("frame %d: %w", dg.Frame, err)
			}
			if !ok {
				return nil
			}
			return b.add(&rec)
		},
	})
	if err != nil {
		return nil, err
	}
	return b.finish(), nil
}
