package main

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/replay"
)

// checksumSources are the values of replay --checksums.
var checksumSources = choices{{name: "recording", about: "the recorded client's answers"}, {name: "manifest", about: "--manifest or --game-dir"}}

type replayOptions struct {
	decodeFlags
	fitFlags
	server      string
	asServer    bool
	listen      string
	clients     []string
	speed       string
	gate        time.Duration
	connectWait time.Duration
	settle      time.Duration
	gameDir     string
	checksums   string
	format      string
	write       string
	all         bool
	floatTol    float64
	rateTol     float64
}

func newReplayCmd(s *streams) *cobra.Command {
	o := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay CAPTURE (--server HOST:PORT | --as-server)",
		Short: "Drive a live server with a recorded client and compare its answers",
		Long: `Play the client half of a recorded game (any input bcdump reads) against a
live server, as a real client: sequence numbers, ACKs, keepalives,
retransmission and fragments are generated live, never replayed. Each
recorded client message waits for the server's answer that preceded it in
the recording (--gate), and for its recorded time (--speed). Checksum
requests are answered from the recording (same round and directory) or
from --manifest / --game-dir. When the server gives the client another
slot, object ids are remapped both ways.

The server's answers are compared with the recorded server's, per client
and phase: connect, checksum, settings, mission exactly (field by field,
times skipped, floats within --float-tolerance); in game statistically
(per-opcode rate and mean size within --rate-tolerance). Runs of a
recording (a server restarted between games) are replayed one after the
other.

With --as-server, listen (--listen) and play the recorded server half to
live clients instead, and compare what they send with the recorded client.

Exit status: 0 the live side matches, 1 differences, 2 it could not run.
See bcdump help replay.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd.Context(), s, o, args[0], cmd.Flags())
		},
	}
	f := cmd.Flags()
	o.registerInput(f)
	o.fitFlags.register(f)
	f.StringVar(&o.server, "server", "", "the server to drive, HOST:PORT")
	f.BoolVar(&o.asServer, "as-server", false, "play the recorded server's half to live clients instead")
	f.StringVar(&o.listen, "listen", "127.0.0.1:22101", "--as-server: the address to listen on")
	f.StringSliceVar(&o.clients, "client", nil, "replay only these recorded clients: player name, peer id or address (repeatable; default all)")
	f.StringVar(&o.speed, "speed", "1", `recorded time divided by N ("2": twice as fast), or "max": each message as soon as its answer came`)
	f.DurationVar(&o.gate, "gate", 5*time.Second, "longest wait for the answer a message waits for; then it goes anyway (a finding)")
	f.DurationVar(&o.connectWait, "connect-timeout", 5*time.Second, "how long the server has to answer Connect")
	f.DurationVar(&o.settle, "settle", 3*time.Second, "how long answers are collected after the last message, at most")
	f.StringVar(&o.gameDir, "game-dir", "", "answer checksum requests the recording cannot from this game folder's files")
	enumVarP(f, &o.checksums, "checksums", "", "recording", checksumSources, "where checksum answers come from first: %s")
	enumVarP(f, &o.format, "format", "F", "table", tableOrJSON, "output format: %s")
	f.StringVarP(&o.write, "write", "w", "", "write the live conversation to this pcapng file")
	f.BoolVar(&o.all, "all", false, "table: every row, not only differences and phase summaries")
	f.Float64Var(&o.floatTol, "float-tolerance", 1e-3, "relative difference accepted between float fields")
	f.Float64Var(&o.rateTol, "rate-tolerance", 0.3, "relative difference accepted between in-game rates and mean sizes")
	return cmd
}

func parseSpeed(s string) (float64, error) {
	if s == "max" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || v > 1000 {
		return 0, fmt.Errorf("--speed %s: want a factor above 0 (up to 1000) or max", s)
	}
	return v, nil
}

func resolveUDP(what, s string) (netip.AddrPort, error) {
	ua, err := net.ResolveUDPAddr("udp", s)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("%s %s: %w", what, s, err)
	}
	ap := ua.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
}

func runReplay(ctx context.Context, s *streams, o *replayOptions, input string, fl *pflag.FlagSet) error {
	if err := s.reading(input); err != nil {
		return err
	}
	if err := o.fitFlags.text(fl, o.format); err != nil {
		return err
	}
	width, err := o.columns(fl, s.out)
	if err != nil {
		return err
	}
	if o.asServer == (o.server != "") {
		return fmt.Errorf("give --server HOST:PORT to drive a server, or --as-server to play one")
	}
	if !o.asServer && fl.Changed("listen") {
		return fmt.Errorf("--listen goes with --as-server")
	}
	speed, err := parseSpeed(o.speed)
	if err != nil {
		return err
	}
	dopt, err := o.options(s)
	if err != nil {
		return err
	}
	ropt := replay.Options{Speed: speed, Gate: o.gate, ConnectWait: o.connectWait, Settle: o.settle}
	ropt.Manifest = dopt.Manifest // --manifest, loaded by o.options
	if o.gameDir != "" {
		if ropt.Manifest, err = checksum.Generate(o.gameDir); err != nil {
			return fmt.Errorf("--game-dir: %w", err)
		}
	}
	if o.checksums == "manifest" {
		if ropt.Manifest == nil {
			return fmt.Errorf("--checksums manifest needs --manifest FILE or --game-dir DIR")
		}
		ropt.PreferManifest = true
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	rec, err := replay.Load(ctx, dissect.Input{Name: input, Stdin: s.in}, dissect.RunOptions{Options: dopt})
	if err != nil {
		return err
	}
	convs, err := rec.Pick(o.clients)
	if err != nil {
		return err
	}
	runs := rec.Runs(convs)

	var w *replayWriter
	if o.write != "" {
		if w, err = newReplayWriter(o.write, input, s); err != nil {
			return err
		}
		defer w.abort()
		ropt.Tap = w.tap
	}

	doc := &replay.Document{Recording: input, Speed: o.speed}
	if o.asServer {
		err = replayAsServer(ctx, s, o, runs, ropt, doc)
	} else {
		err = replayAgainst(ctx, o, runs, ropt, doc)
	}
	if err != nil {
		return err
	}
	if w != nil {
		if err := w.commit(); err != nil {
			return err
		}
	}
	if o.format == "json" {
		err = replay.WriteJSON(s.out, doc)
	} else {
		err = replay.WriteTable(s.out, doc.Rows, o.all, width)
	}
	if err != nil {
		return err
	}
	if replay.Differences(doc.Rows) > 0 {
		return &findingError{}
	}
	return nil
}

func tolerances(o *replayOptions) replay.Tolerances {
	return replay.Tolerances{Float: o.floatTol, Rate: o.rateTol}
}

func replayAgainst(ctx context.Context, o *replayOptions, runs [][]*replay.Conversation, ropt replay.Options, doc *replay.Document) error {
	server, err := resolveUDP("--server", o.server)
	if err != nil {
		return err
	}
	doc.Mode, doc.Peer = "client", server.String()
	lives, errs := replay.Play(ctx, runs, server, ropt)
	ran := 0
	i := 0
	for _, run := range runs {
		for _, c := range run {
			cd := replay.ClientDoc{Name: c.Label(), RecordedAddr: c.Client.String(), RecordedPeerID: c.PeerID, RecordedSlot: c.Slot, LiveSlot: -1}
			if l := lives[i]; l != nil {
				ran++
				cd.LiveAddr, cd.LivePeerID, cd.LiveSlot = l.Local.String(), l.PeerID, l.Slot
				doc.Rows = append(doc.Rows, replay.Compare(l, replay.FromServer, ropt.Speed, tolerances(o))...)
			} else if errs[i] != nil {
				cd.Error = errs[i].Error()
			}
			doc.Clients = append(doc.Clients, cd)
			i++
		}
	}
	if ran == 0 {
		for _, e := range errs {
			if e != nil {
				return e
			}
		}
		return fmt.Errorf("replay: nothing ran")
	}
	return nil
}

func replayAsServer(ctx context.Context, s *streams, o *replayOptions, runs [][]*replay.Conversation, ropt replay.Options, doc *replay.Document) error {
	addr, err := resolveUDP("--listen", o.listen)
	if err != nil {
		return err
	}
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(addr))
	if err != nil {
		return fmt.Errorf("--listen %s: %w", o.listen, err)
	}
	srv := replay.NewServer(runs, conn, ropt)
	defer srv.Close()
	doc.Mode, doc.Peer = "server", srv.Addr().String()
	fmt.Fprintf(s.err, "bcdump: playing the recorded server on %s; waiting for clients (Ctrl-C stops)\n", srv.Addr())
	for _, l := range srv.Serve(ctx) {
		c := l.Conv
		doc.Clients = append(doc.Clients, replay.ClientDoc{Name: c.Label(), RecordedAddr: c.Client.String(), LiveAddr: l.Local.String(),
			RecordedPeerID: c.PeerID, LivePeerID: l.PeerID, RecordedSlot: c.Slot, LiveSlot: l.Slot})
		doc.Rows = append(doc.Rows, replay.Compare(l, replay.FromClient, ropt.Speed, tolerances(o))...)
	}
	return nil
}

// replayWriter is replay's -w: every datagram sent or received, as
// written on the wire, in a pcapng of raw IPv4 frames, committed whole
// when the run ends.
type replayWriter struct {
	mu   sync.Mutex
	name string
	f    *outfile.File
	w    *capture.Writer
	buf  []byte
	id   uint16
	err  error
}

func newReplayWriter(name, input string, s *streams) (*replayWriter, error) {
	f, err := outfile.Create(name, outfile.Options{Inputs: []string{input}, Stdin: s.in, OwnSignals: true})
	if err != nil {
		return nil, fmt.Errorf("-w: %w", err)
	}
	w, err := capture.NewWriter(f, "pcapng", layers.LinkTypeRaw)
	if err != nil {
		f.Abort()
		return nil, err
	}
	return &replayWriter{name: name, f: f, w: w}, nil
}

func (r *replayWriter) tap(out bool, local, remote netip.AddrPort, b []byte) {
	if !local.Addr().Is4() || !remote.Addr().Is4() {
		return // raw IPv4 frames only
	}
	src, dst := remote, local
	if out {
		src, dst = local, remote
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	r.id++
	r.buf = capture.UDP4Frame(r.buf, src, dst, r.id, b)
	ci := gopacket.CaptureInfo{Timestamp: time.Now(), CaptureLength: len(r.buf), Length: len(r.buf)}
	r.err = r.w.WritePacket(ci, r.buf)
}

func (r *replayWriter) commit() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = r.w.Flush()
	}
	if r.err != nil {
		r.f.Abort()
		return fmt.Errorf("-w %s: %w", r.name, r.err)
	}
	r.err = r.f.Commit()
	if r.err != nil {
		return fmt.Errorf("-w %s: %w", r.name, r.err)
	}
	r.err = errDone
	return nil
}

var errDone = fmt.Errorf("replay: -w committed")

func (r *replayWriter) abort() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != errDone {
		r.f.Abort()
		r.err = errDone
	}
}
