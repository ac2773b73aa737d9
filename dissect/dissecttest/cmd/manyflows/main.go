// Command manyflows writes the many-flow capture of dissecttest.ManyFlows,
// for measuring the memory bcdump needs per flow:
//
//	go run ./dissect/dissecttest/cmd/manyflows -n 1000000 > m.pcap
//	/usr/bin/time -v bcdump stats m.pcap   # Maximum resident set size
//
// With -fragments every flow holds an incomplete reassembly instead (the
// Wireshark plugin's memory test).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

func main() {
	n := flag.Int("n", 1000000, "flows")
	span := flag.Duration("span", 100*time.Second, "capture time the flows start within (under 120s: all active at once)")
	reply := flag.Bool("reply", true, "the server answers each connect request (a reliable message each way)")
	frags := flag.Bool("fragments", false, "each client sends instead fragment 0 of a message of 3 fragments that never completes")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	write := func() error { return dissecttest.ManyFlows(w, *n, *span, *reply) }
	if *frags {
		write = func() error { return dissecttest.ManyFragmentFlows(w, *n, *span) }
	}
	if err := write(); err != nil {
		fmt.Fprintln(os.Stderr, "manyflows:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "manyflows:", err)
		os.Exit(1)
	}
}
