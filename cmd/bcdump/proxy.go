package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/report/stats"
	"github.com/bcdump/bcdump/report/story"
)

type proxyOptions struct {
	decodeFlags
	filterFlag
	listen        string
	server        string
	format        string
	color         string
	cipher        bool
	write         string
	count         int
	duration      time.Duration
	verbose       bool
	faults        []string
	seed          uint64
	maxClients    int
	idle          time.Duration
	queue         int
	dropMalformed bool
	noProbe       bool
	widthFlags
}

func newProxyCmd(s *streams) *cobra.Command {
	o := &proxyOptions{}
	cmd := &cobra.Command{
		Use:   "proxy --listen ADDR --server HOST:PORT",
		Short: "Relay between clients and a server, decode as it relays, inject faults",
		Long: `Stand between game clients and a server: clients connect to --listen,
and every datagram is relayed to --server and back, each client through
an upstream socket of its own so the server sees distinct clients. GameSpy
queries pass too. Pure Go sockets: no capture rights, on every OS.

Every datagram relayed is decoded as live decodes a capture (-F table,
json or hex, -Y, --fail-on, the status line, the summary on stop, and the
session story on stop to stderr); -w FILE keeps a pcapng with the
client's and the server's real addresses. Decoding runs off the relay
path: a datagram the decoder has no room for is relayed anyway, and
counted as skipped.

--fault 'ACTION [P%] [if FILTER]' (repeatable) breaks the traffic on
purpose; bcdump help proxy has the details and examples. Every fault
applied is a record: a "fault" line (a {"kind":"fault"} object with
-F json) after the datagram, a packet comment in the -w file, and a
count on stop.`,
		Example: `  bcdump proxy --listen :22101 --server 10.0.0.5:22101
  bcdump proxy --listen 127.0.0.1:22102 --server 127.0.0.1:22101 -w run.pcapng
  bcdump proxy --listen :22101 --server host:22101 --fault 'drop if dir == "s2c" && messages.ack_frag'
  bcdump proxy --listen :22101 --server host:22101 --fault 'delay 300ms if peer_id == 2'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.listen == "" || o.server == "" {
				return errors.New("proxy needs --listen ADDR and --server HOST:PORT")
			}
			if err := colorWithJSON(cmd.Flags(), o.format); err != nil {
				return err
			}
			o.widthFlags.recordGiven(cmd.Flags())
			return runProxy(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "", "address the clients send to, e.g. :22101 or 127.0.0.1:22102")
	f.StringVar(&o.server, "server", "", "the game server, HOST:PORT")
	f.StringVarP(&o.format, "format", "F", "table", "output format: table, json or hex")
	o.filterFlag.register(f, "show only matching datagrams (-w still writes every frame)")
	o.decodeFlags.register(f)
	f.StringVar(&o.color, "color", "auto", "colour: auto, always or never")
	f.BoolVar(&o.cipher, "cipher", false, "hex format: also dump the enciphered bytes")
	f.StringVarP(&o.write, "write", "w", "", "also write every relayed datagram to this pcapng file, faults as packet comments")
	f.IntVarP(&o.count, "count", "c", 0, "stop after N datagrams shown (0: no limit)")
	f.DurationVar(&o.duration, "duration", 0, "stop after this long (0: no limit)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "on stop, print the stats tables to stderr too")
	f.StringArrayVar(&o.faults, "fault", nil, "inject a fault: 'ACTION [ARG] [P%] [if FILTER]' with ACTION drop, delay DURATION, dup [N], reorder or corrupt (repeatable; first match wins)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the fault probabilities and corruptions, for a repeatable run")
	f.IntVar(&o.maxClients, "max-clients", 64, "clients relayed at once; datagrams of more are dropped and counted")
	f.DurationVar(&o.idle, "idle", 60*time.Second, "forget a client (and close its upstream socket) after this long without a datagram")
	f.IntVar(&o.queue, "queue", 4096, "datagrams waiting for the decoder at most; more are relayed but not decoded (counted as skipped)")
	f.BoolVar(&o.dropMalformed, "drop-malformed", false, "drop game datagrams that do not frame instead of relaying them unchanged")
	f.BoolVar(&o.noProbe, "no-probe", false, "do not send the server a GameSpy status query at start")
	o.widthFlags.register(f)
	return cmd
}

// proxyStarted, when set (tests), learns the proxy's address and how to
// stop it once it relays.
var proxyStarted func(addr netip.AddrPort, stop context.CancelFunc)

// proxyProbeWait is how long the start-up probe waits for the server.
var proxyProbeWait = 2 * time.Second

// proxyTick is how often the decoder gets a tick without a datagram (status line, -w flush, timeouts).
const proxyTick = 200 * time.Millisecond

func (o *proxyOptions) relayOptions() (relayOptions, error) {
	ro := relayOptions{listen: o.listen, server: o.server, maxClients: o.maxClients, idle: o.idle,
		queue: o.queue, maxHeld: 4096, dropMalformed: o.dropMalformed, seed: o.seed}
	if o.maxClients < 1 || o.maxClients > 4096 {
		return ro, fmt.Errorf("--max-clients %d: from 1 to 4096", o.maxClients)
	}
	if o.idle <= 0 {
		return ro, fmt.Errorf("--idle %v: must be positive", o.idle)
	}
	if o.queue < 1 || o.queue > 1<<20 {
		return ro, fmt.Errorf("--queue %d: from 1 to 1048576", o.queue)
	}
	for i, text := range o.faults {
		r, err := parseFault(i+1, text)
		if err != nil {
			return ro, err
		}
		ro.rules = append(ro.rules, r)
	}
	return ro, nil
}

func runProxy(ctx context.Context, s *streams, o *proxyOptions) error {
	flt, err := o.compile()
	if err != nil {
		return err
	}
	ro, err := o.relayOptions()
	if err != nil {
		return err
	}
	opt, gate, err := o.resolve(s)
	if err != nil {
		return err
	}
	if o.count < 0 || o.duration < 0 {
		return errors.New("-c and --duration cannot be negative")
	}
	rep, errColor, err := liveOutput(s, o.write, o.format, o.color, o.cipher, &o.widthFlags)
	if err != nil {
		return err
	}
	// The server's port is a game port whatever -p says: it decides each
	// datagram's direction.
	sp, err := serverPort(o.server)
	if err != nil {
		return err
	}
	opt.Ports = addPort(opt.Ports, sp)
	ro.dissect = opt

	r, err := startRelay(ro)
	if err != nil {
		return err
	}
	defer r.close()
	if ln := r.Addr().Port(); ln != sp {
		opt.Ports = addPort(opt.Ports, ln) // a datagram the proxy kept is addressed to it
	}
	if !o.noProbe {
		answered, err := r.probe(proxyProbeWait)
		if err != nil {
			return err
		}
		if !answered {
			fmt.Fprintf(s.err, "bcdump: %s did not answer a GameSpy status query in %v; relaying anyway\n", o.server, proxyProbeWait)
		}
	}
	src := newProxySource(r, proxyTick)
	defer src.tick.Stop()
	if o.write != "" {
		f, err := outfile.Create(o.write, outfile.Options{OwnSignals: true})
		if err != nil {
			return fmt.Errorf("-w: %w", err)
		}
		w, err := capture.NewWriter(f, "pcapng", layers.LinkTypeRaw)
		if err != nil {
			f.Abort()
			return err
		}
		src.out, src.w, src.outName = f, w, o.write
	}

	ctx, stop := stopContext(ctx, o.duration)
	defer stop()
	if proxyStarted != nil {
		proxyStarted(r.Addr(), stop)
	}
	fmt.Fprintf(s.err, "bcdump: relaying %s <-> %s, %d fault %s; Ctrl-C stops\n",
		r.Addr(), o.server, len(ro.rules), plural(len(ro.rules), "rule", "rules"))

	sess := dissect.NewSession(dissect.SessionOptions{Options: opt, Mode: dissect.Serial, EventsAsFound: true})
	st := stats.NewStats()
	an := story.New()
	an.SetOptions(story.Options{Color: errColor})
	shown := &liveShown{name: "proxy " + r.Addr().String(), drops: r.skipped.Load,
		sess: sess, rep: rep, status: newStatusLine(s), count: o.count}
	faults := &proxyFaults{src: src, out: s.out, json: o.format == "json", next: shown}
	src.kept = faults.kept
	var show dissect.Sink = faults
	if flt != nil {
		show = query.NewSelect(faults, query.SelectOptions{Filter: flt})
	}
	var sinks dissect.Sink = dissect.Chain(st, an, show)
	if gate != nil {
		sinks = dissect.Chain(st, gate, an, show)
	}
	runErr := sess.Run(ctx, src, sinks)
	stop()
	r.close()
	return finishProxy(s, render.NewPalette(errColor), r, src, sess, st, an, shown.printed, gate, runErr, o.verbose)
}

func serverPort(server string) (uint16, error) {
	ap, err := resolvePort(server)
	if err != nil {
		return 0, fmt.Errorf("--server %s: %v", server, err)
	}
	return ap, nil
}

func addPort(ports []uint16, p uint16) []uint16 {
	if len(ports) == 0 {
		ports = []uint16{capture.DefaultPort}
	}
	for _, q := range ports {
		if q == p {
			return ports
		}
	}
	return append(ports, p)
}

// proxyFaults shows each datagram's fault record right after it.
type proxyFaults struct {
	src  *proxySource
	out  io.Writer
	json bool
	next *liveShown
	buf  []byte
}

func (f *proxyFaults) Datagram(d *dissect.Datagram) error {
	if err := f.next.Datagram(d); err != nil {
		return err
	}
	fault := f.src.faultOf(d.Frame)
	if fault == "" {
		return nil
	}
	return f.show(d.Frame, d.Time, fault, true)
}

// kept shows the fault record of a datagram the proxy did not pass on:
// it is not decoded, so the record stands alone.
func (f *proxyFaults) kept(frame int, t time.Time, fault string) error {
	return f.show(frame, t, fault, false)
}

// show writes one fault record: a line under the datagram (table, hex),
// a {"kind":"fault"} object (json); passed says whether the datagram
// went on (and was shown just before).
func (f *proxyFaults) show(frame int, t time.Time, fault string, passed bool) error {
	b := f.buf[:0]
	if f.json {
		b = append(b, `{"kind":"fault","frame":`...)
		b = strconv.AppendInt(b, int64(frame), 10)
		b = append(b, `,"time":"`...)
		b = render.AppendTimeJSON(b, t)
		b = append(b, `","passed":`...)
		b = strconv.AppendBool(b, passed)
		b = append(b, `,"fault":`...)
		b = render.AppendJSONString(b, fault)
		b = append(b, "}\n"...)
	} else {
		b = fmt.Appendf(b, "  %d  %s\n", frame, fault)
	}
	f.buf = b
	shown := f.next.status.hide()
	_, err := f.out.Write(b)
	if shown {
		f.next.status.draw(f.next.statusText())
	}
	return err
}

func (f *proxyFaults) Events(ev []dissect.Event) error  { return f.next.Events(ev) }
func (f *proxyFaults) Finish(end []dissect.Event) error { return f.next.Finish(end) }
func (f *proxyFaults) Tick(t time.Time) error           { return f.next.Tick(t) }

// finishProxy reports the end of a proxy run: the -w file committed, the
// session story, the relay's counts and the faults applied on stderr.
func finishProxy(s *streams, pal render.Palette, r *relay, src *proxySource, sess *dissect.Session,
	st *stats.Stats, an *story.Analyzer, printed int, gate *severityGate, runErr error, verbose bool) error {
	st.AddFlows("proxy", sess.Flows())
	st.AddUnlisted(sess.Unlisted())
	var closeErr error
	if src.w != nil {
		if err := src.w.Flush(); err != nil {
			src.out.Abort()
			closeErr = fmt.Errorf("-w %s: %w", src.outName, err)
		} else if err := src.out.Commit(); err != nil {
			closeErr = fmt.Errorf("-w %s: %w", src.outName, err)
		}
	}
	failed := firstErr(runErr, closeErr)
	if failed == nil {
		if err := an.WriteTable(s.err); err != nil {
			fmt.Fprintf(s.err, "bcdump: session story: %v\n", err)
		}
		if verbose {
			if err := st.WriteTable(s.err, pal); err != nil {
				fmt.Fprintf(s.err, "bcdump: stats summary: %v\n", err)
			}
		}
	}
	flows, anomalies := st.Counts()
	fmt.Fprintf(s.err, "bcdump: proxy relayed %d datagrams client to server, %d server to client; %d shown, %d not decoded (queue full); %d malformed, %d refused (client limit); %d %s, %d %s\n",
		r.relayed[dissect.C2S].Load(), r.relayed[dissect.S2C].Load(), printed, r.skipped.Load(),
		r.malformed.Load(), r.refused.Load(),
		flows, plural(flows, "flow", "flows"), anomalies, plural(int(anomalies), "anomaly", "anomalies"))
	if len(r.opt.rules) > 0 {
		fmt.Fprintf(s.err, "bcdump: faults applied: %s\n", strings.Join(r.faultCounts(), "; "))
	}
	if failed != nil {
		return failed
	}
	return gate.err()
}

// resolvePort reads the port of HOST:PORT.
func resolvePort(hostport string) (uint16, error) {
	_, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	return uint16(n), nil
}
