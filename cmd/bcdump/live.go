package main

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/bcdump/bcdump/report"
)

type liveOptions struct {
	decodeFlags
	iface    string
	format   string
	color    string
	cipher   bool
	write    string
	count    int
	duration time.Duration
}

func newLiveCmd(s *streams) *cobra.Command {
	o := &liveOptions{}
	cmd := &cobra.Command{
		Use:   "live -i IFACE",
		Short: "Sniff an interface and decode BC traffic as it flows",
		Long: `Capture UDP on the game ports of a network interface ("any" for all) and
print every BC datagram as it arrives, in the formats of read; each
datagram is flushed at once, so "bcdump live -i eth0 -F json | jq" works.

Linux only (AF_PACKET, no libpcap); needs root or CAP_NET_RAW. A kernel
filter passes only UDP to or from the game ports, so other traffic costs
nothing. Ctrl-C (or SIGTERM), -c or --duration stops the capture: the
pending output is written, then a stats summary and the packets the kernel
dropped go to stderr. On a terminal, stderr shows a status line meanwhile.`,
		Example: `  bcdump live -i eth0
  bcdump live -i any -F json | jq .
  bcdump live -i lo -c 20 -w session.pcapng
  bcdump live -i eth0 --duration 10m --fail-on error`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLive(cmd.Context(), s, o) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.iface, "interface", "i", "", `interface to capture on ("any" for all)`)
	f.StringVarP(&o.format, "format", "F", "table", "output format: table, json or hex")
	o.decodeFlags.register(f)
	f.StringVar(&o.color, "color", "auto", "colour: auto, always or never")
	f.BoolVar(&o.cipher, "cipher", false, "hex format: also dump the enciphered bytes")
	f.StringVarP(&o.write, "write", "w", "", "also write every captured frame to this pcapng file")
	f.IntVarP(&o.count, "count", "c", 0, "stop after N datagrams (game and GameSpy; 0: no limit)")
	f.DurationVar(&o.duration, "duration", 0, "stop after this long (e.g. 30s, 10m; 0: no limit)")
	_ = cmd.MarkFlagRequired("interface")
	return cmd
}

// liveTick is how often the status line and the -w file are brought up to
// date, and the longest a stop request waits.
const liveTick = 200 * time.Millisecond

func runLive(ctx context.Context, s *streams, o *liveOptions) error {
	opt, gate, err := o.resolve()
	if err != nil {
		return err
	}
	if o.count < 0 {
		return fmt.Errorf("-c %d: the count cannot be negative", o.count)
	}
	if o.duration < 0 {
		return fmt.Errorf("--duration %v: the duration cannot be negative", o.duration)
	}
	if o.write == "-" {
		return errors.New("-w -: stdout carries the decoded datagrams; give a file name")
	}
	rep, err := newReporter(s, o.format, o.color, o.cipher, true)
	if err != nil {
		return err
	}
	errColor, err := useColor(o.color, s.err)
	if err != nil {
		return err
	}
	src, err := capture.OpenLive(o.iface, capture.LiveOptions{Ports: opt.Ports})
	if err != nil {
		return err
	}
	defer src.Close()
	out, err := openLiveWriter(o.write, src)
	if err != nil {
		return err
	}

	// Stop requests are caught before the banner says capture is on.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	fmt.Fprintf(s.err, "bcdump: capturing on %s (%s), UDP ports %s; Ctrl-C stops\n",
		src.Name(), src.LinkType(), portList(opt.Ports))

	lr := &liveRun{
		src: src, d: dissect.New(opt), rep: rep, stats: report.NewStats(), gate: gate, out: out,
		status: newStatusLine(s), count: o.count,
	}
	runErr := lr.loop(ctx)
	stop() // a second Ctrl-C during the summary ends the program
	return lr.finish(s, report.NewPalette(errColor), runErr)
}

// liveRun is one capture: the loop state and what it feeds.
type liveRun struct {
	src    *capture.Live
	d      *dissect.Dissector
	rep    report.Reporter
	stats  *report.Stats
	gate   *severityGate
	out    *liveWriter // nil without -w
	status *statusLine
	count  int // -c; 0 is no limit

	printed     int    // datagrams handed to the reporter
	dgAnomalies int    // anomalies on datagrams; events are counted by the Dissector
	flows       int    // for the status line, as of the last tick
	drops       uint64 // likewise
}

// loop captures until ctx ends, -c is reached or capture fails. Next wakes
// up every liveTick (its deadline), so a stop request waits at most that
// long even when no traffic comes.
func (r *liveRun) loop(ctx context.Context) error {
	var p capture.Packet
	r.src.SetDeadline(time.Now().Add(liveTick))
	for ctx.Err() == nil && (r.count == 0 || r.printed < r.count) {
		err := r.src.Next(&p)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if err := r.tick(); err != nil {
				return err
			}
			r.src.SetDeadline(time.Now().Add(liveTick))
			continue
		}
		if err != nil {
			return err
		}
		if err := r.packet(&p); err != nil {
			return err
		}
	}
	return nil
}

// packet writes the frame to -w, then decodes and reports it when it is a
// game datagram (the kernel filter lets the odd first IP fragment through).
func (r *liveRun) packet(p *capture.Packet) error {
	if r.out != nil {
		if err := r.out.w.WritePacket(p.CaptureInfo, p.Data); err != nil {
			return r.out.fail(err)
		}
	}
	if p.Kind != capture.KindMatched {
		return nil
	}
	dg := r.d.Packet(p)
	r.gate.Datagram(dg)
	if err := r.stats.Datagram(dg); err != nil {
		return err
	}
	shown := r.status.hide()
	err := r.rep.Datagram(dg)
	r.printed++
	r.dgAnomalies += len(dg.Anomalies)
	if err == nil {
		err = r.events()
	}
	if shown {
		r.status.draw(r.statusText())
	}
	return err
}

// events reports what the tracker found since the last call (a message
// resent although ACKed, a reassembly timed out, a silent peer) at once,
// when the reporter can show events mid-capture; otherwise they wait for
// the end, as for a file.
func (r *liveRun) events() error {
	ev := r.d.TakeEvents()
	if len(ev) == 0 {
		return nil
	}
	r.gate.Events(ev)
	if err := r.stats.Finish(ev); err != nil {
		return err
	}
	return r.rep.Events(ev)
}

// tick brings the -w file and the status line up to date.
func (r *liveRun) tick() error {
	if r.out != nil {
		if err := r.out.w.Flush(); err != nil {
			return r.out.fail(err)
		}
	}
	// Capture time goes on while the wire is quiet: timeouts fire without
	// waiting for the next packet.
	r.d.Tick(time.Now())
	r.status.hide() // redrawn below
	if err := r.events(); err != nil {
		return err
	}
	if r.status.on {
		r.flows, r.drops = len(r.d.Flows()), r.src.Stats().Drops
		r.status.draw(r.statusText())
	}
	return nil
}

// statusText is the status line; flows and drops are as of the last tick.
func (r *liveRun) statusText() string {
	return fmt.Sprintf("%s: %d datagrams, %d flows, %d anomalies, %d dropped",
		r.src.Name(), r.printed, r.flows, r.dgAnomalies+r.d.EventsFound(), r.drops)
}

// finish reports the end of the capture whatever stopped it: the end
// events, the -w file closed, the stats summary and the kernel's drops on
// stderr. The first error wins; without one, --fail-on decides.
func (r *liveRun) finish(s *streams, pal report.Palette, runErr error) error {
	r.status.clear()
	end := r.d.Finish()
	r.gate.Events(end)
	errs := []error{runErr, r.stats.Finish(end), r.rep.Finish(end)}
	r.stats.AddFlows(r.src.Name(), r.d.Flows())
	r.stats.AddUnlisted(r.d.Unlisted())
	st := r.src.Stats()
	r.src.Close()
	if r.out != nil {
		errs = append(errs, r.out.close())
	}
	if err := r.stats.WriteTable(s.err, pal); err != nil {
		// The datagrams are all out; a summary that cannot be made is
		// worth a line, not the exit status.
		fmt.Fprintf(s.err, "bcdump: stats summary: %v\n", err)
	}
	fmt.Fprintf(s.err, "bcdump: %d datagrams in %d frames captured on %s, %d dropped by the kernel\n",
		r.printed, st.Frames, r.src.Name(), st.Drops)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return r.gate.err()
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
