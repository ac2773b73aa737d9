package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/report/stats"
)

type liveOptions struct {
	decodeFlags
	filterFlag
	iface    string
	list     bool
	format   string
	color    string
	cipher   bool
	write    string
	count    int
	duration time.Duration
	verbose  bool // the stats tables on stop, not one line
	widthFlags
}

func newLiveCmd(s *streams) *cobra.Command {
	o := &liveOptions{}
	cmd := &cobra.Command{
		Use:   "live -i IFACE | --list-interfaces",
		Short: "Sniff an interface and decode BC traffic as it flows",
		Long: `Capture UDP on the game ports of a network interface ("any" for all) and
print every BC datagram as it arrives, in the formats of read; each
datagram is flushed at once, so "bcdump live -i eth0 -F json | jq" works.

-i takes a name, a Windows friendly name ("Ethernet 2") or a number from
--list-interfaces. Linux captures through AF_PACKET (root or CAP_NET_RAW),
Windows through Npcap (npcap.com), macOS and the BSDs through /dev/bpf
(root, or the access_bpf group on macOS); bcdump help platforms says more.
A filter passes only UDP to or from the game ports, in the kernel on Linux
and Windows (other traffic costs nothing there), in bcdump on macOS and
the BSDs. Ctrl-C (SIGINT), SIGTERM, SIGHUP, a reader of stdout going away
(SIGPIPE, as with | head), -c or --duration stops the capture: the -w file
is completed and closed, the pending output is written, then one summary
line (datagrams, frames, packets the kernel dropped, flows, anomalies; -v
adds the stats tables before it) goes to stderr, exit 0. An error
(writing the -w file or stdout) also stops it: the count of what was
captured, then the error as the last line, exit 2. On a terminal, stderr shows a status line meanwhile.

-Y shows only the datagrams and events a display filter selects (bcdump
fields lists the fields); -c then counts those. The filter changes only
what is shown: -w still writes every captured frame, and the stats summary
covers all of them.`,
		Example: `  bcdump live -i eth0
  bcdump live -i any -F json | jq .
  bcdump live -i lo -c 20 -w session.pcapng
  bcdump live -i eth0 -Y 'anomalies.severity == error' -w all.pcapng
  bcdump live -i eth0 --duration 10m --fail-on error
  bcdump live --list-interfaces`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.list {
				if o.iface != "" {
					return errors.New("--list-interfaces takes no -i")
				}
				return listInterfaces(s)
			}
			if o.iface == "" {
				return errors.New(`required flag(s) "interface" not set (bcdump live --list-interfaces lists them)`)
			}
			if err := colorWithJSON(cmd.Flags(), o.format); err != nil {
				return err
			}
			o.widthFlags.recordGiven(cmd.Flags())
			return runLive(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.iface, "interface", "i", "", `interface to capture on: a name, a number from --list-interfaces ("any" for all on Linux)`)
	f.BoolVarP(&o.list, "list-interfaces", "D", false, "list the interfaces live can capture on, numbered, and exit")
	enumVarP(f, &o.format, "format", "F", "table", recordFormats, "output format: %s")
	o.filterFlag.register(f, "show only matching datagrams and events (-w still writes every frame)")
	o.decodeFlags.register(f)
	enumVarP(f, &o.color, "color", "", "auto", colorModes, "colour: %s")
	f.BoolVar(&o.cipher, "cipher", false, "hex format: also dump the enciphered bytes")
	f.StringVarP(&o.write, "write", "w", "", "also write every captured frame to this pcapng file, whatever -Y shows")
	f.IntVarP(&o.count, "count", "c", 0, "stop after N datagrams shown (game and GameSpy; with -Y, matching ones; 0: no limit)")
	f.DurationVar(&o.duration, "duration", 0, "stop after this long (e.g. 30s, 10m; 0: no limit)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "on stop, print the stats tables to stderr before the summary line")
	o.widthFlags.register(f)
	return cmd
}

// listInterfaces prints the interfaces, numbered for -i, as tshark -D
// does: "1. eth0", "2. lo (Loopback)", on Windows the device name then
// its friendly name and description.
func listInterfaces(s *streams) error {
	list, err := capture.Interfaces()
	if err != nil {
		return err
	}
	var b strings.Builder
	for n, i := range list {
		fmt.Fprintf(&b, "%d. %s", n+1, i.Name)
		var about []string
		for _, a := range []string{i.Friendly, i.Description} {
			if a != "" {
				about = append(about, a)
			}
		}
		if len(about) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(about, ": "))
		}
		b.WriteByte('\n')
	}
	_, err = io.WriteString(s.out, b.String())
	return err
}

// liveTick is how often capture time moves on without a packet, the status
// line and the -w file are brought up to date, and the longest a stop
// request waits.
const liveTick = 200 * time.Millisecond

func runLive(ctx context.Context, s *streams, o *liveOptions) error {
	flt, err := o.compile()
	if err != nil {
		return err
	}
	opt, gate, err := o.resolve(s)
	if err != nil {
		return err
	}
	if o.count < 0 {
		return fmt.Errorf("-c %d: the count cannot be negative", o.count)
	}
	if o.duration < 0 {
		return fmt.Errorf("--duration %v: the duration cannot be negative", o.duration)
	}
	rep, errColor, err := liveOutput(s, o.write, o.format, o.color, o.cipher, &o.widthFlags)
	if err != nil {
		return err
	}
	src, err := capture.OpenLive(o.iface, capture.LiveOptions{Ports: opt.Ports, Tick: liveTick})
	if err != nil {
		return err
	}
	defer src.Close()
	out, err := openLiveWriter(o.write, src)
	if err != nil {
		return err
	}
	var in capture.Source = src
	if out != nil {
		in = out
	}

	// Stop requests are caught before the banner says capture is on.
	ctx, stop := stopContext(ctx, o.duration)
	defer stop()
	fmt.Fprintf(s.err, "bcdump: capturing on %s (%s), UDP ports %s; Ctrl-C stops\n",
		src.Name(), src.LinkType(), portList(opt.Ports))

	// Serial: a datagram is shown as it arrives, not when a batch is full;
	// events are shown as found, not only in the final summary.
	sess := dissect.NewSession(dissect.SessionOptions{Options: opt, Mode: dissect.Serial, EventsAsFound: true})
	st := stats.NewStats()
	shown := &liveShown{name: src.Name(), drops: func() uint64 { return src.Stats().Drops },
		sess: sess, rep: rep, status: newStatusLine(s), count: o.count}
	var show dissect.Sink = shown
	if flt != nil {
		show = query.NewSelect(shown, query.SelectOptions{Filter: flt})
	}
	runErr := sess.Run(ctx, in, liveSinks(st, gate, show))
	stop() // a second Ctrl-C during the summary ends the program
	return finishLive(s, render.NewPalette(errColor), src, out, sess, st, shown.printed, gate, runErr, o.verbose)
}

// liveOutput sets up what live and proxy show as they go: the reporter
// on stdout (-F, --color, --cipher; flushed datagram by datagram, shaped
// by -t, --wide and --width) and whether stderr is coloured. -w cannot be
// stdout: stdout carries the decoded datagrams.
func liveOutput(s *streams, write, format, color string, cipher bool, wf *widthFlags) (rep render.Reporter, errColor bool, err error) {
	if write == "-" {
		return nil, false, errors.New("-w -: stdout carries the decoded datagrams; give a file name")
	}
	rep, err = newReporter(s, format, color, cipher, true)
	if err != nil {
		return nil, false, err
	}
	if err := wf.shape(rep, format, s.out); err != nil {
		return nil, false, err
	}
	errColor, err = useColor(color, s.err)
	if err != nil {
		return nil, false, err
	}
	return rep, errColor, nil
}

// stopContext is ctx ended by a stop request, for live and proxy: Ctrl-C
// (SIGINT), SIGTERM, SIGHUP (the terminal or ssh session closed), SIGPIPE
// (a reader of stdout that goes away, as with | head: with it caught, the
// write fails with EPIPE instead of killing the process before the -w
// file is closed), or d passing (0: no limit). stop ends the context and
// the catching, so that a second Ctrl-C ends the program.
func stopContext(ctx context.Context, d time.Duration) (_ context.Context, stop context.CancelFunc) {
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	if d <= 0 {
		return ctx, stopSignals
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, func() { cancel(); stopSignals() }
}

// firstErr is the first error of a live or proxy run, the one reported:
// the run's own (EPIPE, stdout's reader gone as with | head, is a stop
// request, not a failure: the summary still goes to stderr), then those
// of closing its outputs.
func firstErr(runErr error, closeErrs ...error) error {
	if runErr != nil && !errors.Is(runErr, syscall.EPIPE) {
		return runErr
	}
	for _, err := range closeErrs {
		if err != nil {
			return err
		}
	}
	return nil
}

// liveSinks are the sinks of a live Session: the stats summary, the
// --fail-on gate (if any) and what is shown.
func liveSinks(st *stats.Stats, gate *severityGate, show dissect.Sink) dissect.Sink {
	if gate == nil {
		return dissect.Chain(st, show)
	}
	return dissect.Chain(st, gate, show)
}

// liveShown is what bcdump live shows as it goes: the reporter's output
// with the status line around it, and the -c limit.
type liveShown struct {
	name   string        // the interface (live) or the proxy's address
	drops  func() uint64 // datagrams lost before decoding: the kernel's drops, the proxy's skips
	sess   *dissect.Session
	rep    render.Reporter
	status *statusLine
	count  int // -c; 0 is no limit

	printed     int    // datagrams handed to the reporter
	dgAnomalies int    // anomalies on datagrams; events are counted by the Session
	flows       int    // for the status line, as of the last tick
	dropped     uint64 // likewise
}

func (l *liveShown) Datagram(dg *dissect.Datagram) error {
	shown := l.status.hide()
	err := l.rep.Datagram(dg)
	l.printed++
	l.dgAnomalies += len(dg.Anomalies)
	if shown {
		l.status.draw(l.statusText())
	}
	if err == nil && l.count > 0 && l.printed >= l.count {
		return dissect.ErrStop
	}
	return err
}

// Events shows what the tracker found (a message resent although ACKed, a
// reassembly timed out, a silent peer) at once.
func (l *liveShown) Events(ev []dissect.Event) error {
	shown := l.status.hide()
	err := l.rep.Events(ev)
	if shown {
		l.status.draw(l.statusText())
	}
	return err
}

// Finish takes the status line away and reports the end events.
func (l *liveShown) Finish(end []dissect.Event) error {
	l.status.clear()
	return l.rep.Finish(end)
}

// Tick brings the status line up to date (the -w file flushes itself on
// the same tick).
func (l *liveShown) Tick(time.Time) error {
	if l.status.on {
		l.flows, l.dropped = len(l.sess.Flows()), l.drops()
		l.status.draw(l.statusText())
	}
	return nil
}

// statusText is the status line; flows and drops are as of the last tick.
func (l *liveShown) statusText() string {
	if l.flows == 0 && l.printed > 0 {
		l.flows = len(l.sess.Flows()) // a datagram shown before the first tick has its flow
	}
	return fmt.Sprintf("%s: %d datagrams, %d flows, %d anomalies, %d dropped",
		l.name, l.printed, l.flows, l.dgAnomalies+l.sess.EventsFound(), l.dropped)
}

// finishLive reports the end of the capture whatever stopped it: the -w
// file closed, the stats summary and the kernel's drops on stderr. The
// first error wins; without one, --fail-on decides.
func finishLive(s *streams, pal render.Palette, src *capture.Live, out *liveWriter, sess *dissect.Session,
	st *stats.Stats, printed int, gate *severityGate, runErr error, verbose bool) error {
	st.AddFlows(src.Name(), sess.Flows())
	st.AddUnlisted(sess.Unlisted())
	cs := src.Stats()
	src.Close()
	var closeErr error
	if out != nil {
		closeErr = out.close()
	}
	failed := firstErr(runErr, closeErr)
	// After an error the tables are left out: the count of what was
	// captured, then the error, printed last by the caller, alone.
	if failed == nil && verbose {
		if err := st.WriteTable(s.err, pal); err != nil {
			// The datagrams are all out; a summary that cannot be made is
			// worth a line, not the exit status.
			fmt.Fprintf(s.err, "bcdump: stats summary: %v\n", err)
		}
	}
	flows, anomalies := st.Counts()
	fmt.Fprintf(s.err, "bcdump: %d datagrams in %d frames captured on %s, %d dropped by the kernel; %d %s, %d %s\n",
		printed, cs.Frames, src.Name(), cs.Drops, flows, plural(flows, "flow", "flows"), anomalies, plural(int(anomalies), "anomaly", "anomalies"))
	if failed != nil {
		return failed
	}
	return gate.err()
}

func portList(ports []uint16) string {
	ports = slices.Clone(ports)
	slices.Sort(ports)
	var b strings.Builder
	for i, p := range slices.Compact(ports) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(p)))
	}
	return b.String()
}
