package dissect

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
)

// Input names one input of Dissect: a file, or "-" for Stdin.
type Input struct {
	Name  string
	Stdin io.Reader // read when Name is "-"
}

// IsStream reports whether the input is a pipe, FIFO, socket or terminal:
// it may be fed as it is captured (tcpdump -U -w - | bcdump read -).
func (in Input) IsStream() bool {
	var fi os.FileInfo
	var err error
	if in.Name == "-" {
		f, ok := in.Stdin.(*os.File)
		if !ok {
			return false
		}
		fi, err = f.Stat()
	} else {
		fi, err = os.Stat(in.Name)
	}
	return err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeSocket|os.ModeCharDevice) != 0
}

// Source is an input opened by Dissect: its packets and what Dissect asks
// of it besides. capture.Reader (pcap and pcapng, compressed or not, file
// or pipe) is the one format today; another input format is one more
// Source, recognised in openSource by its first bytes (see the package
// doc).
type Source interface {
	capture.Source
	// Name is how the input is named in output ("stdin" for "-").
	Name() string
	// Plaintext reports whether the game payloads are deciphered already
	// (a copy written by bcdump decrypt -w).
	Plaintext() bool
	// Progress returns the bytes read so far and the input's size, -1
	// when unknown (a pipe).
	Progress() (done, total int64)
	Close() error
}

var _ Source = (*capture.Reader)(nil)

// RunOptions say how Dissect decodes one input.
type RunOptions struct {
	// Options configure the Dissector. Plain is set for an input marked
	// as deciphered; AutoPorts looks for BC traffic on other UDP ports
	// first (an extra pass; stdin is kept in a temporary file for it) and
	// decodes those ports too.
	Options
	// Mode Auto decodes a file on every core and a pipe serially (a
	// datagram must not wait for the packets after it); Serial or
	// Parallel is taken as it is. Workers is SessionOptions.Workers.
	Mode    Mode
	Workers int
	// Follow reads an input that is a stream (Input.IsStream) like a live
	// capture: serially, handing events out as found, with capture time moving
	// on while the pipe is quiet, so timeouts fire (capture.Follow).
	Follow bool
	// Observers see every datagram and event before the sink (Chain):
	// counters and gates that do not change what the sink shows.
	Observers []Sink
	// Progress, when set, is asked once per input for a progress meter
	// given the input's name and size (-1: unknown); nil means none.
	Progress func(name string, total int64) Progress
	// Opened, when set, hears of the input once it is open, before it is
	// decoded (to say what its format lacks, for example).
	Opened func(src Source)
	// PortsFound, when set, hears what AutoPorts found (nothing, or the
	// ports added) before the input is decoded.
	PortsFound func(input string, found []uint16)
}

// Progress is a meter of one input's decoding.
type Progress interface {
	// Update reports the bytes read and the datagrams decoded so far; it is
	// called for every datagram.
	Update(bytes int64, datagrams int)
	// Done ends the meter.
	Done()
}

// Result is what Dissect learned of an input besides what the sink saw.
type Result struct {
	// Session ran the input (its flows); nil when it could not be opened.
	Session *Session
	// Opened is set once the input was opened: an error after it is the
	// input's damage or the sink's, not a missing file.
	Opened bool
	// Ports is the game ports decoded (with what AutoPorts added).
	Ports []uint16
	// Unmatched, when nothing was on the game ports, says what the input
	// held instead; nil when something was (or the Source cannot say).
	Unmatched *Unmatched
}

// Unmatched is what an input without traffic on the game ports held.
type Unmatched struct {
	// Stats are the capture reader's counts (frames, UDP datagrams, those
	// on other ports).
	Stats capture.Stats
	// ByPort counts the UDP datagrams on other ports by the lower of their
	// two ports (the service's, mostly), for at most maxPortsCounted ports.
	ByPort map[uint16]int
	// Searched: the datagrams on other ports were looked at for BC traffic
	// (not with AutoPorts, which looked already). BCPorts are the ports
	// found carrying it (which -p to give); Examined is how many datagrams
	// were looked at, at most maxOtherPorts.
	Searched bool
	BCPorts  []uint16
	Examined int
}

// followTick is how long a followed pipe may be quiet before capture time
// moves on without a packet.
const followTick = 200 * time.Millisecond

// maxOtherPorts bounds the datagrams on other ports examined for
// Unmatched.BCPorts.
const maxOtherPorts = 20000

// maxPortsCounted bounds the ports Unmatched.ByPort counts separately.
const maxPortsCounted = 1024

// Dissect decodes one input into sink: it opens the input and recognises
// its format and a deciphered copy, finds the game ports with AutoPorts,
// picks serial or parallel decoding, follows a pipe with Follow, and keeps
// the progress meter. Once the input is open (Result.Opened), everything
// decoded before an error reaches sink, and its Finish is called, before
// the error is returned.
func Dissect(ctx context.Context, in Input, opt RunOptions, sink Sink) (res Result, err error) {
	follow := opt.Follow && in.IsStream() // before stdin is spooled
	dopt := opt.Options
	res.Ports = dopt.Ports
	if len(res.Ports) == 0 {
		res.Ports = []uint16{DefaultPort}
	}
	dopt.Ports = res.Ports
	if dopt.AutoPorts {
		local, cleanup, err := Spool(in)
		if err != nil {
			return res, err
		}
		defer cleanup()
		found, err := FindPorts(local.Name, dopt)
		if err != nil {
			if in.Name == "-" {
				err = fmt.Errorf("stdin: %w", err) // not the spool file's name
			}
			return res, err
		}
		if opt.PortsFound != nil {
			opt.PortsFound(in.Name, found)
		}
		if len(found) > 0 {
			res.Ports = append(slices.Clone(res.Ports), found...)
			dopt.Ports = res.Ports
		}
		if in.Name == "-" {
			f, err := os.Open(local.Name)
			if err != nil {
				return res, err
			}
			defer f.Close()
			in.Stdin = f
		}
	}

	others := &otherPorts{}
	src, err := openSource(in, capture.Options{Ports: dopt.Ports, OtherPort: others.add, Trace: dopt.Trace})
	if err != nil {
		return res, err
	}
	res.Opened = true
	if opt.Opened != nil {
		opt.Opened(src)
	}
	others.start(src, dopt.Plain || src.Plaintext(), !dopt.AutoPorts)
	dopt.Plain = dopt.Plain || src.Plaintext()

	var fw *capture.Follow
	defer func() {
		if fw == nil || !fw.Close() { // a read in progress owns src until it ends
			src.Close()
		}
	}()
	sinks := make([]Sink, 0, len(opt.Observers)+2)
	_, size := src.Progress()
	if opt.Progress != nil {
		if p := opt.Progress(src.Name(), size); p != nil {
			sinks = append(sinks, &progressSink{p: p, src: src})
		}
	}
	sinks = append(append(sinks, opt.Observers...), sink)

	so := SessionOptions{Options: dopt, Mode: Serial, Workers: opt.Workers}
	if size >= 0 {
		so.Mode = Auto // a file is read ahead; a pipe is serial
	}
	var from capture.Source = src
	if follow {
		fw = capture.NewFollow(src, followTick)
		from = fw
		so.Mode, so.EventsAsFound, so.Now = Serial, true, fw.Now
	}
	if opt.Mode != Auto {
		so.Mode = opt.Mode
	}
	res.Session = NewSession(so)
	if err := res.Session.Run(ctx, from, Chain(sinks...)); err != nil {
		return res, err
	}
	res.Unmatched = others.unmatched(dopt.Ports)
	return res, nil
}

// openSource opens in as the Source its content says it is. Today that is
// a capture.Reader, which tells pcap and pcapng (and their compressions)
// apart by their magic; a new input format is recognised here, by its
// first bytes, before the capture reader is tried.
func openSource(in Input, opt capture.Options) (Source, error) {
	if in.Name == "-" {
		return capture.NewReader(in.Stdin, "stdin", opt)
	}
	return capture.Open(in.Name, opt)
}

// Spool returns an input that can be read twice: in itself for a file,
// else stdin copied to a temporary file, which cleanup removes.
func Spool(in Input) (Input, func(), error) {
	if in.Name != "-" {
		return in, func() {}, nil
	}
	f, err := os.CreateTemp("", "bcdump-stdin-*.cap")
	if err != nil {
		return in, nil, err
	}
	cleanup := func() { os.Remove(f.Name()) }
	if _, err := io.Copy(f, in.Stdin); err != nil {
		f.Close()
		cleanup()
		return in, nil, fmt.Errorf("stdin: %w", err)
	}
	if err := f.Close(); err != nil {
		cleanup()
		return in, nil, err
	}
	return Input{Name: f.Name()}, cleanup, nil
}

// FindPorts reads the capture at path once, every frame, for BC traffic on
// UDP ports other than opt.Ports (PortFinder), and returns those ports.
func FindPorts(path string, opt Options) ([]uint16, error) {
	r, err := capture.Open(path, capture.Options{Ports: opt.Ports, AllFrames: true, Trace: opt.Trace})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	pf := NewPortFinder(opt.Plain || r.Plaintext())
	var p capture.Packet
	for r.Next(&p) == nil {
		if p.Kind == capture.KindOtherPort {
			pf.Add(&p)
		}
	}
	return pf.Ports(opt.Ports), nil
}

// otherPorts watches the UDP on other ports while nothing has been seen on
// the game ports: it counts the datagrams by port and (find) looks for BC
// traffic among the first maxOtherPorts of them, for Result.Unmatched.
type otherPorts struct {
	r      interface{ Stats() capture.Stats }
	pf     *PortFinder // nil unless find
	fed    int
	byPort map[uint16]int
}

func (o *otherPorts) start(src Source, plain, find bool) {
	r, ok := src.(interface{ Stats() capture.Stats })
	if !ok {
		return
	}
	o.r = r
	if find {
		o.pf = NewPortFinder(plain)
	}
}

func (o *otherPorts) add(p *capture.Packet) {
	if o.r == nil || o.r.Stats().Matched > 0 {
		return
	}
	port := min(p.Src.Port(), p.Dst.Port())
	if o.byPort == nil {
		o.byPort = map[uint16]int{}
	}
	if _, ok := o.byPort[port]; ok || len(o.byPort) < maxPortsCounted {
		o.byPort[port]++
	}
	if o.pf == nil || o.fed >= maxOtherPorts {
		return
	}
	o.fed++
	o.pf.Add(p)
}

// unmatched is Result.Unmatched once the input has been read.
func (o *otherPorts) unmatched(ports []uint16) *Unmatched {
	if o.r == nil {
		return nil
	}
	st := o.r.Stats()
	if st.Matched > 0 {
		return nil
	}
	u := &Unmatched{Stats: st, ByPort: o.byPort, Searched: o.pf != nil, Examined: o.fed}
	if o.pf != nil {
		u.BCPorts = o.pf.Ports(ports)
	}
	return u
}

// progressSink keeps a Progress up to date: bytes read and datagrams so
// far; Finish ends it.
type progressSink struct {
	p   Progress
	src Source
	n   int
}

func (s *progressSink) Datagram(*Datagram) error {
	s.n++
	done, _ := s.src.Progress()
	s.p.Update(done, s.n)
	return nil
}

func (s *progressSink) Events([]Event) error { return nil }

// FieldBlind: progress reads no fields.
func (s *progressSink) FieldBlind() bool { return true }

func (s *progressSink) Finish([]Event) error {
	s.p.Done()
	return nil
}
