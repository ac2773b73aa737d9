package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/bcdump/bcdump/report/internal/jsonerr"
	"github.com/bcdump/bcdump/report/jsonkeys"
)

// record is the part of one `bcdump read --format json` line the diff
// reads; its keys are the record key table's (report/jsonkeys,
// TestTraceReaderKeys). Unknown keys are ignored, so traces written by a
// newer bcdump (keys are only ever added) still load.
type record struct {
	Frame    int             `json:"frame"`
	Time     string          `json:"time"`
	Src      string          `json:"src"`
	Dst      string          `json:"dst"`
	Dir      string          `json:"dir"`
	Kind     string          `json:"kind"`
	Text     *string         `json:"text"`
	GameSpy  json.RawMessage `json:"gamespy"`
	Messages []recMessage    `json:"messages"`
}

type recMessage struct {
	Type       int       `json:"type"`
	TypeName   string    `json:"type_name"`
	Seq        *uint32   `json:"seq"`
	AckLow     bool      `json:"ack_low"`
	Reliable   bool      `json:"reliable"`
	Ordered    bool      `json:"ordered"`
	Fragment   bool      `json:"fragment"`
	FragIdx    int       `json:"frag_idx"`
	recPayload           // opcode, fields, payload_hex
	Retransmit bool      `json:"retransmit"`
	Keepalive  bool      `json:"keepalive"`
	Duplicate  bool      `json:"duplicate"`
	Ack        string    `json:"ack"`
	Reasm      *recReasm `json:"reassembled"`
}

type recReasm struct {
	Frags int `json:"frags"`
	recPayload
}

// recPayload is what a message and a reassembled payload share.
type recPayload struct {
	Opcode     *int            `json:"opcode"`
	OpcodeName string          `json:"opcode_name"`
	Fields     json.RawMessage `json:"fields"`
	PayloadHex *string         `json:"payload_hex"`
}

// typeACK and typeData are the transport types the diff treats specially.
const (
	typeACK  = 1
	typeData = 50
)

// MaxLineLen bounds one JSON line of a trace. A datagram is at most 64 KiB
// and a reassembled message is bounded by the tracker, so real lines are far
// shorter; the bound keeps a hostile file from taking unbounded memory.
const MaxLineLen = 16 << 20

// parseRecord decodes one line. ok is false for lines that are not
// datagrams (the trailing {"kind":"summary"} line, and the
// {"kind":"event"} lines of a live capture).
func parseRecord(line []byte, r *record) (ok bool, err error) {
	*r = record{}
	if err := json.Unmarshal(line, r); err != nil {
		return false, errors.New(jsonerr.Describe(err))
	}
	switch r.Kind {
	case jsonkeys.KindGame, jsonkeys.KindGameSpy:
	case jsonkeys.KindSummary, jsonkeys.KindEvent:
		return false, nil
	default:
		return false, fmt.Errorf("unknown kind %q", r.Kind)
	}
	if r.Dir != "c2s" && r.Dir != "s2c" {
		return false, fmt.Errorf("bad dir %q", r.Dir)
	}
	return true, nil
}

// readTrace calls fn with every datagram record of a JSON Lines trace that
// keep selects (nil: all).
func readTrace(r io.Reader, keep Keep, fn func(*record) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		rec  record
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
			ok, perr := parseRecord(t, &rec)
			if perr != nil {
				return fmt.Errorf("line %d: %w", lineNo, perr)
			}
			if ok {
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
