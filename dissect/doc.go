// Package dissect turns captured UDP payloads on the game port into decoded
// datagrams: GameSpy text, or deciphered game datagrams with their transport
// messages, per-flow delivery state and decoded game opcodes.
//
// # The way in
//
// Dissect is the entry point every command that reads an input uses (read,
// stats, session, profile, report and diff): it owns what is decided about
// an input before and around decoding, so no command decides it again.
//
//   - Format: the input is opened by its content (openSource); today a
//     capture.Reader, which tells pcap and pcapng and their compressions
//     apart by their magic.
//   - A copy written by bcdump decrypt -w is recognised by its marker and
//     decoded as plaintext (Options.Plain is set for it).
//   - Options.AutoPorts (-p auto) reads the input once more first, stdin
//     kept in a temporary file for it, and adds the ports carrying BC
//     traffic; without it, Result.OtherPorts names them when nothing was on
//     the game ports.
//   - Serial or parallel: a file is decoded on every core (Mode Auto), a
//     pipe serially; RunOptions.Follow reads a pipe like a live capture.
//   - Progress: a meter the caller supplies is kept up to date.
//   - Sinks: observers (counters, gates) and the sink are chained (Chain);
//     when the sink is a Renderer, so is the chain, and the parallel
//     pipeline renders on every core.
//
// An input format is a Source: packets (capture.Source) plus its name,
// whether it is plaintext, its progress, and Close. Another format (a stock
// server's packet_trace.log, an OpenBC OBCTRACE file) is one more Source,
// recognised in openSource by its first bytes; every command then reads it
// with nothing else changed. A Source without ports to find (a log of
// datagrams) has no AutoPorts pass to make. Live capture
// (capture.OpenLive) is a network interface, not an input: bcdump live
// runs its own Serial Session over it with the same Chain.
//
// A Session runs one capture.Source through a Dissector into a Sink;
// Dissect builds it. A Dissector decodes packets one at a time.
//
// Imports point one way: dissect imports capture, game, transport, cipher
// and checksum; report and cmd import dissect, never the reverse.
package dissect
