// Command replicate writes a long capture made of copies of a short one
// (package dissect/dissecttest/replicate), for the measuring script
// .ci/measure and for trying bcdump on volume:
//
//	go run ./dissect/dissecttest/cmd/replicate -copies 240 -o big.pcap testdata/captures/openbc-session-3.pcap
//
// With -spread and -client-addrs it writes the many-flow capture instead:
// all copies at once, started within the spread, each client of each copy
// from its own address (1,000 copies of session 3: 3,000 clients):
//
//	go run ./dissect/dissecttest/cmd/replicate -copies 1000 -spread 10s -client-addrs -o many.pcap testdata/captures/openbc-session-3.pcap
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest/replicate"
)

func main() {
	copies := flag.Int("copies", 10, "copies of the source to write")
	gap := flag.Duration("gap", time.Second, "capture time between the end of one copy and the start of the next")
	keepPorts := flag.Bool("keep-ports", false, "leave client ports alone, so every copy continues the flows of the previous one")
	spread := flag.Duration("spread", 0, "overlap the copies: start them all within this much capture time (0: one after another)")
	addrs := flag.Bool("client-addrs", false, "give every client of every copy its own IP address (10.0.0.0/8, fd00::/8) and keep the ports")
	out := flag.String("o", "", "output capture (required)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: replicate [flags] -o out.pcap source.pcap\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, replicate.Options{Copies: *copies, Gap: *gap, KeepPorts: *keepPorts, Spread: *spread, ClientAddrs: *addrs}); err != nil {
		fmt.Fprintln(os.Stderr, "replicate:", err)
		os.Exit(1)
	}
}

func run(src, out string, opt replicate.Options) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	s, err := replicate.Load(bytes.NewReader(raw), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := s.Write(f, opt); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("%s: %d copies, %d frames\n", out, opt.Copies, opt.Copies*s.Frames())
	return nil
}
