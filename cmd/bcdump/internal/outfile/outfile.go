// Package outfile writes bcdump's output files so that no run destroys
// what it reads or leaves half a file under the name it was asked for.
//
// The rules (help topic output-files):
//   - an output that is one of the run's inputs (the same file, also
//     through a symbolic or hard link) is refused before anything is
//     written; so is standard output when it is a regular file that is
//     one of them (CheckStdout: bcdump read x.pcap >> x.pcap);
//   - a regular file, or a name that does not exist yet, is written to a
//     temporary file in the target's directory, synced and renamed into
//     place only when complete: an interrupted run leaves the old file or
//     the whole new one, never a part;
//   - an existing file that is not a regular file (a terminal, a device
//     such as /dev/null, a FIFO or a pipe like /dev/stdout) is written in
//     place: renaming over it would replace the device node itself;
//   - a symbolic link named by the user (-o, -w) is followed, so the file
//     it points to is replaced and the link stays; at a name bcdump chose
//     itself (Options.ReplaceLink) the link is replaced instead, so a link
//     planted there is never written through, and a FIFO or device found
//     there is refused without being opened.
//
// It imports only the standard library.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// Options say what an output must not clobber.
type Options struct {
	// Inputs are the files the run reads: the output must not be one of
	// them. "-" stands for Stdin, checked when it is an *os.File.
	Inputs []string
	Stdin  io.Reader
	// ReplaceLink: bcdump chose the name (an install folder, the pages of
	// bcdump man), so a symbolic link there is replaced, not followed.
	ReplaceLink bool
	// NoClobber: an existing file is kept and the write refused (an
	// output name the user did not give).
	NoClobber bool
	// OwnSignals: the caller stops on SIGINT and SIGTERM itself and then
	// commits or aborts; otherwise the temporary file is removed when one
	// of them ends the process.
	OwnSignals bool
}

// InputError is an output that is one of the run's inputs.
type InputError struct {
	Out, In string
}

// StdoutName is InputError.Out when the output is standard output.
const StdoutName = "standard output"

func (e *InputError) Error() string {
	if e.Out == StdoutName {
		in := "the input " + e.In
		if e.In == "-" {
			in = "the file on standard input"
		}
		return fmt.Sprintf("standard output is %s: bcdump does not write over its input; redirect it elsewhere", in)
	}
	if e.In == "-" {
		return fmt.Sprintf("%s is the file on standard input: bcdump does not write over its input; choose another output", e.Out)
	}
	if e.In == e.Out {
		return fmt.Sprintf("%s is an input of this run: bcdump does not write over its input; choose another output", e.Out)
	}
	return fmt.Sprintf("%s is the same file as the input %s: bcdump does not write over its input; choose another output", e.Out, e.In)
}

// ExistsError is an existing output refused under Options.NoClobber.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string { return e.Path + " exists" }

// Check refuses path when it is one of o.Inputs (through links too) or a
// directory; a path that does not exist yet is fine. Commands call it
// before their work so a refusal costs nothing; Create calls it again.
func Check(path string, o Options) error {
	out, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if out.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	if in, ok := inputOf(out, o); ok {
		return &InputError{Out: path, In: in}
	}
	return nil
}

// CheckStdout refuses a standard output that is one of o.Inputs: a
// regular file (bcdump read x.pcap >> x.pcap) compared by device and
// inode, as Check compares a named output. A terminal, pipe or device is
// never refused: writing to it destroys no file. Commands call it before
// they write anything to stdout.
func CheckStdout(stdout io.Writer, o Options) error {
	f, ok := stdout.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if in, ok := inputOf(fi, o); ok {
		return &InputError{Out: StdoutName, In: in}
	}
	return nil
}

// inputOf returns the input of o that is the file out, if any.
func inputOf(out fs.FileInfo, o Options) (string, bool) {
	for _, in := range o.Inputs {
		var fi fs.FileInfo
		var err error
		if in == "-" {
			f, ok := o.Stdin.(*os.File)
			if !ok {
				continue
			}
			fi, err = f.Stat()
		} else {
			fi, err = os.Stat(in)
		}
		if err == nil && os.SameFile(out, fi) {
			return in, true
		}
	}
	return "", false
}

// fileKind names the type of a file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// File is an output being written; Commit puts it in place, Abort drops
// it. Abort after Commit does nothing, so `defer f.Abort()` is the way to
// drop it on every early return.
type File struct {
	f      *os.File
	target string // the name the new file gets
	tmp    string // the temporary file; "" when written in place
	o      Options
	done   bool
}

// Create opens path for writing under the rules of the package comment.
func Create(path string, o Options) (*File, error) {
	if err := Check(path, o); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	link := false
	if li, err := os.Lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		link = true
	}
	if exists && !fi.Mode().IsRegular() && !(link && o.ReplaceLink) {
		// A device, FIFO or terminal: written in place (O_TRUNC would
		// be ignored by most and is not wanted by any).
		if o.NoClobber {
			return nil, &ExistsError{path}
		}
		if o.ReplaceLink {
			// bcdump chose the name, so nobody asked to write into
			// this: refused before it is opened (opening a FIFO for
			// writing blocks until a reader comes, maybe never).
			return nil, fmt.Errorf("%s exists and is not a regular file (%s): bcdump does not write into it; remove it or choose another folder", path, fileKind(fi.Mode()))
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{f: f, target: path, o: o}, nil
	}
	target := path
	if link && !o.ReplaceLink {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return nil, err
		}
	}
	perm := fs.FileMode(0o644)
	if exists && !link {
		perm = fi.Mode().Perm() // a replaced file keeps its permissions
	}
	if o.NoClobber && (exists || link) {
		return nil, &ExistsError{path}
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return nil, createError(err, path, filepath.Dir(target))
	}
	out := &File{f: f, target: target, tmp: f.Name(), o: o}
	if err := f.Chmod(perm); err != nil { // CreateTemp makes 0600
		f.Close()
		os.Remove(f.Name())
		return nil, out.named(err)
	}
	if !o.OwnSignals {
		pending.add(out.tmp)
	}
	return out, nil
}

// Name is the name the output is written under (the target of a followed
// link).
func (f *File) Name() string { return f.target }

func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	return n, f.named(err)
}

// Commit syncs the temporary file and renames it into place (under
// NoClobber, links it there unless a file appeared meanwhile); a file
// written in place is closed.
func (f *File) Commit() error {
	if f.done {
		return errors.New("outfile: commit after commit or abort")
	}
	if f.tmp == "" {
		f.done = true
		return f.f.Close()
	}
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		f.Abort()
		return f.named(err)
	}
	unlock := pending.lock()
	defer unlock()
	if f.o.NoClobber {
		// A link fails when the name exists: nothing is replaced.
		if err = os.Link(f.tmp, f.target); err == nil {
			os.Remove(f.tmp)
		} else if errors.Is(err, fs.ErrExist) {
			err = &ExistsError{f.target}
		}
	} else if err = os.Rename(f.tmp, f.target); err != nil {
		err = replaceError(runtime.GOOS, err, f.target)
	}
	if err != nil {
		os.Remove(f.tmp)
	}
	pending.removeLocked(f.tmp)
	f.done = true
	return err
}

// Abort closes the output and removes the temporary file: the old file,
// if any, stays as it was. It does nothing after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	if f.tmp != "" {
		os.Remove(f.tmp)
		pending.remove(f.tmp)
	}
}

// WriteFile writes data to path as Create and Commit do.
func WriteFile(path string, data []byte, o Options) error {
	f, err := Create(path, o)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// named is err with the temporary file's name replaced by the name the
// user gave: the temporary file is bcdump's business, and gone once an
// error is reported.
func (f *File) named(err error) error {
	var pe *fs.PathError
	if f.tmp != "" && errors.As(err, &pe) && pe.Path == f.tmp {
		return &fs.PathError{Op: pe.Op, Path: f.target, Err: pe.Err}
	}
	return err
}

// createError is the failure to create the temporary file for path in
// dir, said of path.
func createError(err error, path, dir string) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot write %s: the directory %s does not exist", path, dir)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: "create", Path: path, Err: pe.Err}
	}
	return err
}

// HeldOpenError is an output Windows would not let bcdump replace: another
// program has it open (or it is read-only). The file is as it was.
type HeldOpenError struct {
	Path string
	Err  error // the rename's error
}

func (e *HeldOpenError) Error() string {
	return fmt.Sprintf("cannot replace %s: it is open in another program (or read-only); it is unchanged, and the new output was not kept: close it there, or write another name", e.Path)
}

func (e *HeldOpenError) Unwrap() error { return e.Err }

// Windows errors a rename into place fails with when another program
// holds the target open: ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION and
// ERROR_LOCK_VIOLATION. (Numbers, so that the mapping builds and is
// tested everywhere.)
var heldOpenErrnos = []syscall.Errno{5, 32, 33}

// replaceError is the failure of the rename of a complete temporary file
// onto target, on the system goos, said of target: on Windows a target
// held open elsewhere is a HeldOpenError.
func replaceError(goos string, err error, target string) error {
	var le *os.LinkError
	if !errors.As(err, &le) {
		return err
	}
	var no syscall.Errno
	if goos == "windows" && errors.As(le.Err, &no) {
		for _, h := range heldOpenErrnos {
			if no == h {
				return &HeldOpenError{Path: target, Err: err}
			}
		}
	}
	return &fs.PathError{Op: "replace", Path: target, Err: le.Err}
}
