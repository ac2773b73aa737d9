package diff

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/bcdump/bcdump/report/record"
)

// MaxLineLen bounds one JSON line of a trace. A datagram is at most 64 KiB
// and a reassembled message is bounded by the tracker, so real lines are far
// shorter; the bound keeps a hostile file from taking unbounded memory.
const MaxLineLen = 16 << 20

// readTrace calls fn with every datagram record of a JSON Lines trace that
// keep selects (nil: all).
func readTrace(r io.Reader, keep Keep, fn func(*record.Datagram) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		dec  record.Decoder
		rec  record.Datagram
		long []byte
	)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
				if len(long) > MaxLineLen {
					return fmt.Errorf("line %d: longer than %d bytes", lineNo, MaxLineLen)
				}
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && (keep == nil || keep(t)) {
			if perr := dec.Decode(t, &rec); perr != nil {
				return fmt.Errorf("line %d: %w", lineNo, perr)
			}
			if rec.Kind.IsDatagram() {
				if ferr := fn(&rec); ferr != nil {
					return fmt.Errorf("line %d: %w", lineNo, ferr)
				}
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}
