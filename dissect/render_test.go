package dissect_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/render"
)

// jsonRenderer is a Renderer writing every datagram whose frame is not a
// multiple of skip as JSON, to out; it stops (stopAt) or fails (failAt)
// after so many records, like read -c and a closed stdout.
type jsonRenderer struct {
	out     bytes.Buffer
	skip    int
	stopAt  int // Order returns ErrStop at this record; 0: never
	failAt  int // Write fails once this many bytes were written; 0: never
	shown   int
	renders atomic.Int64
}

var errWrite = errors.New("write failed")

func (j *jsonRenderer) Order(dg *dissect.Datagram) (uint8, error) {
	if dg.Frame%j.skip == 0 {
		return 0, nil
	}
	j.shown++
	if j.shown == j.stopAt {
		return 1, dissect.ErrStop
	}
	return 1, nil
}

func (j *jsonRenderer) NewRender() func([]byte, *dissect.Datagram, uint8) []byte {
	return func(b []byte, dg *dissect.Datagram, _ uint8) []byte {
		j.renders.Add(1)
		return append(render.AppendDatagramJSON(b, dg), '\n')
	}
}

func (j *jsonRenderer) Write(b []byte) error {
	if j.failAt > 0 && j.out.Len()+len(b) >= j.failAt {
		return errWrite
	}
	j.out.Write(b)
	return nil
}

func (j *jsonRenderer) Datagram(dg *dissect.Datagram) error {
	mark, err := j.Order(dg)
	if mark != 0 {
		if werr := j.Write(j.NewRender()(nil, dg, mark)); werr != nil {
			return werr
		}
	}
	return err
}

func (j *jsonRenderer) Events([]dissect.Event) error { return nil }

func (j *jsonRenderer) Finish(end []dissect.Event) error {
	for _, e := range end {
		j.out.WriteString(e.Code.String() + " " + strconv.Itoa(e.Frame) + "\n")
	}
	return nil
}

// A Renderer's records come out the same in every mode: rendered after
// tracking, on other goroutines, written in order; a stop and a failed
// write end the run where Serial ends it.
func TestRendererMatchesSerial(t *testing.T) {
	path := replicated(t, filepath.Join(testdata, "captures", "openbc-session-2.pcap"), 6)
	modes := []dissect.SessionOptions{
		{Mode: dissect.Serial},
		{Mode: dissect.Parallel, Workers: 1},
		{Mode: dissect.Parallel, Workers: 2},
		{Mode: dissect.Parallel, Workers: 16},
		{Mode: dissect.Auto, Workers: 2}, // switches to Serial after 29 batches: see below
	}
	calls, restore := dissect.CrowdedAfter(7)
	defer restore()
	for _, tt := range []struct {
		name           string
		skip           int
		stopAt, failAt int
		wantErr        error
	}{
		{"every datagram", 1 << 30, 0, 0, nil},
		{"some", 3, 0, 0, nil},
		{"stop", 2, 300, 0, nil},
		{"write fails", 1 << 30, 0, 200000, errWrite},
	} {
		var want []byte
		for i, so := range modes {
			r, err := capture.Open(path, capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			j := &jsonRenderer{skip: tt.skip, stopAt: tt.stopAt, failAt: tt.failAt}
			err = dissect.NewSession(so).Run(context.Background(), r, j)
			r.Close()
			if err != tt.wantErr {
				t.Errorf("%s, mode %d: err %v, want %v", tt.name, i, err, tt.wantErr)
			}
			if i == 0 {
				want = j.out.Bytes()
				continue
			}
			if n := calls(); so.Mode == dissect.Auto && tt.stopAt == 0 && tt.failAt == 0 {
				// Auto found itself crowded and went on in Serial.
				if n != 5 {
					t.Errorf("%s, Auto: %d core checks, want 5 (the mark, then four short)", tt.name, n)
				}
			}
			if tt.failAt > 0 {
				// Records go out a batch at a time: fewer may have made it.
				if !bytes.HasPrefix(want, j.out.Bytes()) {
					t.Errorf("%s, mode %d: what was written is not serial's start", tt.name, i)
				}
			} else if !bytes.Equal(j.out.Bytes(), want) {
				t.Errorf("%s, mode %d: %d bytes differ from serial's %d", tt.name, i, j.out.Len(), len(want))
			}
			if j.renders.Load() == 0 {
				t.Errorf("%s, mode %d: nothing rendered", tt.name, i)
			}
		}
	}
}
