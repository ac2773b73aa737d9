package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
)

// input is one capture named on the command line, or found under a
// directory named there; err is set when it could not even be listed.
type input struct {
	name string
	err  error
}

// expandInputs turns FILE arguments into the captures to read: a directory
// stands for the captures under it, recursively, in name order ("-" is
// stdin). Under a directory, hidden files and directories (a name starting
// with a dot: .git) are left out, and so are files whose first bytes are
// no capture's (capture.LooksLikeCapture: sources, notes, HTML reports);
// one line on stderr counts them. A file named on the command line is
// always read. many reports whether the run reads more than one capture
// (or a directory): records then say which file they come from. On
// Windows, whose shells do not expand wildcards, bcdump expands them
// first (expandWildcards). Every capture found is recorded as read
// (streams.reading), so that no output of the run, standard output
// included, is one of them; err is that refusal.
func expandInputs(s *streams, args []string) (ins []input, many bool, err error) {
	var names []string
	for _, w := range expandWildcards(runtime.GOOS, args) {
		if w.err != nil {
			ins = append(ins, input{name: w.names[0], err: w.err})
			continue
		}
		names = append(names, w.names...)
	}
	for _, a := range names {
		fi, err := os.Stat(a)
		if a == "-" || err != nil || !fi.IsDir() {
			ins = append(ins, input{name: a})
			continue
		}
		many = true
		var hidden, other int
		werr := filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
			if path != a && strings.HasPrefix(d.Name(), ".") {
				hidden++
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if err != nil {
				ins = append(ins, input{name: path, err: err})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if isCapture, err := looksLikeCapture(path); err == nil && !isCapture {
				other++
				return nil
			}
			ins = append(ins, input{name: path}) // an unreadable file is reported when read
			return nil
		})
		if werr != nil {
			ins = append(ins, input{name: a, err: werr})
		}
		if hidden+other > 0 {
			var parts []string
			if hidden > 0 {
				parts = append(parts, fmt.Sprintf("%d hidden %s", hidden, plural(hidden, "entry", "entries")))
			}
			if other > 0 {
				parts = append(parts, fmt.Sprintf("%d %s not captures", other, plural(other, "file", "files")))
			}
			s.noteOnce("bcdump: %s: skipped %s", a, strings.Join(parts, " and "))
		}
	}
	return ins, many || len(ins) > 1, s.reading(inputNames(ins)...)
}

// looksLikeCapture reads the first bytes of the file at path.
func looksLikeCapture(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, capture.MagicLen)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, err
	}
	return capture.LooksLikeCapture(head[:n]), nil
}

// inputError is a capture that could not be read, or not to its end: a
// run over several captures reports it and goes on with the next.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// asInputError marks err as the capture's fault when it is: the file could
// not be opened (opened false) or is damaged.
func asInputError(err error, opened bool) error {
	var fe *capture.FrameError
	var le *capture.LinkTypeError
	if err != nil && (!opened || errors.As(err, &fe) || errors.As(err, &le)) {
		return &inputError{err}
	}
	return err
}

// isInputError reports whether err is a capture's fault (inputError).
func isInputError(err error) bool {
	var ie *inputError
	return errors.As(err, &ie)
}

// failedInputs is the error a run over several captures ends with when
// some could not be read; each was reported when it failed.
func failedInputs(failed, total int) error {
	if failed == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d captures could not be read", failed, total)
}

// sourceName is how a capture is named in output: "stdin" for "-".
func sourceName(name string) string {
	if name == "-" {
		return "stdin"
	}
	return name
}

// inputRun walks the captures of one command. With one capture, its error
// ends the run as before; with several, each failure is reported when it
// happens (one line) and the run goes on, ending with exit status 2.
type inputRun struct {
	s      *streams
	many   bool
	total  int
	failed int
	opened int   // captures that could be opened (even if damaged later)
	first  error // with one capture: its error, returned at the end
	done   bool  // set by the caller: the captures left are not read (read -c)
}

// fail records a capture that failed (opened: it was read up to damage).
func (r *inputRun) fail(err error, opened bool) {
	r.failed++
	if opened {
		r.opened++
	}
	if r.many {
		fmt.Fprintln(r.s.err, "bcdump:", errorText(err))
	} else if r.first == nil {
		r.first = err
	}
}

// ok records a capture read to its end.
func (r *inputRun) ok() { r.opened++ }

// err is what the run ends with once its output is written.
func (r *inputRun) err() error {
	if !r.many {
		return r.first
	}
	return failedInputs(r.failed, r.total)
}

// each runs one over every capture of args. A capture's own failure
// (inputError) is recorded and the walk goes on; any other error stops it
// and is returned.
func (r *inputRun) each(ins []input, one func(in input) (opened bool, err error)) error {
	r.total = len(ins)
	for _, in := range ins {
		if r.done {
			break
		}
		if in.err != nil {
			r.fail(in.err, false)
			continue
		}
		opened, err := one(in)
		switch {
		case err == nil:
			r.ok()
		case isInputError(err):
			r.fail(err, opened)
		default:
			return err
		}
	}
	return nil
}

// streaming reports whether one of the captures is a pipe, FIFO, socket or
// terminal (stdin included): it may be fed as it is captured (tcpdump -U
// -w - | bcdump read -), so each record is printed and flushed as soon as
// it is decoded. Files keep their big buffered writes.
func streaming(s *streams, ins []input) bool {
	for _, in := range ins {
		if in.err == nil && (dissect.Input{Name: in.name, Stdin: s.in}).IsStream() {
			return true
		}
	}
	return false
}

// openCaptureWith opens a capture ("-": stdin) to copy its frames
// (convert, decrypt -w); commands that decode one go through
// dissect.Dissect.
func openCaptureWith(s *streams, name string, opt capture.Options) (*capture.Reader, error) {
	if name == "-" {
		return capture.NewReader(s.in, "stdin", opt)
	}
	return capture.Open(name, opt)
}
