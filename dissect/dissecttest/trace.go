package dissecttest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/transport"
)

// TraceLogOptions shape a packet_trace.log written by WriteTraceLog.
type TraceLogOptions struct {
	// Server is the server's address (datagrams from it are S->C); zero
	// means the address on port 22101 of the first datagram.
	Server netip.AddrPort
	// Peers is the capacity of the writer's peer table: peers past it are
	// labelled with a bare address. 0 means 16, a negative value none.
	Peers int
	// UnknownDest lists the SEQs of server datagrams logged `S->? unknown`.
	UnknownDest []int
	// CutInEntry, when set, ends the log inside that entry (after its
	// first hex row), as when the server is killed.
	CutInEntry int
	// Decoded adds a "Decoded:" block to GameSpy entries.
	Decoded bool
}

// traceDumpMax is how much of a datagram the stock writer dumps.
const traceDumpMax = 2048

// WriteTraceLog writes the datagrams of the capture r reads as the stock
// server's proxy DLL logs them (the format of issue 27): a header, and per
// datagram an entry line, the deciphered bytes as hex rows (at most 2048,
// then a truncation line), writer decode lines to be ignored, and an empty
// line. Times are r's times of day (UTC).
func WriteTraceLog(w io.Writer, r *capture.Reader, opt TraceLogOptions) error {
	bw := bufio.NewWriter(w)
	peers := map[netip.AddrPort]int{}
	switch {
	case opt.Peers == 0:
		opt.Peers = 16
	case opt.Peers < 0:
		opt.Peers = 0
	}
	unknown := map[int]bool{}
	for _, s := range opt.UnknownDest {
		unknown[s] = true
	}
	var p capture.Packet
	seq := 0
	plain := r.Plaintext()
	buf := make([]byte, 0, 512)
	for {
		err := r.Next(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if !opt.Server.IsValid() {
			opt.Server = p.Dst
			if p.Src.Port() == capture.DefaultPort {
				opt.Server = p.Src
			}
		}
		if seq == 0 {
			fmt.Fprintf(bw, "# STBC Dedicated Server - Packet Trace (DECRYPTED)\n# Session started: %s\n",
				p.Time.UTC().Format("2006-01-02 15:04:05"))
			bw.WriteString(traceLegend)
		}
		seq++
		fromPeer := p.Dst == opt.Server
		peer := p.Dst
		if fromPeer {
			peer = p.Src
		}
		label := peer.String()
		if n, ok := peers[peer]; ok {
			label = fmt.Sprintf("Peer#%d(%s)", n, peer)
		} else if len(peers) < opt.Peers {
			n := len(peers)
			peers[peer] = n
			label = fmt.Sprintf("Peer#%d(%s)", n, peer)
			fmt.Fprintf(bw, "# NEW PEER: %s\n", label)
		}
		dir := "S->C"
		switch {
		case fromPeer:
			dir = "C->S"
		case unknown[seq]:
			dir, label = "S->?", "unknown"
		}
		buf = append(buf[:0], p.Payload...)
		gamespy := len(buf) > 0 && buf[0] == '\\'
		if !gamespy && !plain {
			cipher.Decrypt(buf)
		}
		tags := "[GameData]"
		switch {
		case gamespy && fromPeer:
			tags = "GAMESPY_QUERY [" + gamespyText(buf) + "]"
		case gamespy:
			tags = "GAMESPY_RESPONSE"
		}
		fmt.Fprintf(bw, "[%s] #%d %s %s len=%d rc=%d %s\n", p.Time.UTC().Format("15:04:05.000"), seq, dir, label, len(buf), len(buf), tags)
		var rows bytes.Buffer
		if gamespy {
			fmt.Fprintf(bw, "  Text: %s\n", gamespyText(buf))
			if opt.Decoded {
				bw.WriteString("  Decoded:\n")
				kv := strings.Split(strings.Trim(gamespyText(buf), "\\"), "\\")
				for i := 0; i+1 < len(kv); i += 2 {
					fmt.Fprintf(bw, "    %s = %s\n", kv[i], kv[i+1])
				}
			}
			bw.WriteString("  Hex:\n")
		} else {
			bw.WriteString("  Decrypted:\n")
		}
		hexRows(&rows, buf)
		if seq == opt.CutInEntry {
			row, _, _ := bytes.Cut(rows.Bytes(), []byte("\n"))
			bw.Write(row)
			bw.WriteString("\n")
			return bw.Flush()
		}
		bw.Write(rows.Bytes())
		if !gamespy {
			// The writer's own decode, which a reader ignores.
			fmt.Fprintf(bw, "      peer=%d msgs=%d\n", buf[0], len(buf))
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

const traceLegend = `# Legend: S->C server sent, C->S server received, S->? destination unknown
#         len = datagram length, rc = socket call return value
#         Decrypted: the whole datagram deciphered (byte 0 is never enciphered)

`

// gamespyText is a GameSpy datagram as the writer prints it.
func gamespyText(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7f {
			s.WriteByte(c)
		} else {
			s.WriteByte('.')
		}
	}
	return s.String()
}

// hexRows writes b as the writer's hex rows: a 4-digit offset, 16 bytes
// upper-case and padded, then the bytes as ASCII; after 2048 bytes, the
// truncation line.
func hexRows(w *bytes.Buffer, b []byte) {
	n := min(len(b), traceDumpMax)
	for off := 0; off < n; off += 16 {
		row := b[off:min(off+16, n)]
		fmt.Fprintf(w, "    %04X: ", off)
		for i := 0; i < 16; i++ {
			if i < len(row) {
				fmt.Fprintf(w, "%02X ", row[i])
			} else {
				w.WriteString("   ")
			}
		}
		w.WriteString(" |")
		for _, c := range row {
			if c >= 0x20 && c < 0x7f {
				w.WriteByte(c)
			} else {
				w.WriteByte('.')
			}
		}
		w.WriteString("|\n")
	}
	if len(b) > n {
		fmt.Fprintf(w, "    ... (%d bytes truncated)\n", len(b)-n)
	}
}

// OBCTraceOptions shape an OBCTRACE written by WriteOBCTrace.
type OBCTraceOptions struct {
	// Server as for TraceLogOptions.
	Server netip.AddrPort
	// Tick is the tick length; 0 means capture.DefaultTraceTick.
	Tick time.Duration
}

// WriteOBCTrace writes the game messages of the capture r reads as
// OpenBC's harness records them (the format of issue 27): each Data (type
// 0x32) message once, retransmissions left out, fragmented ones whole once
// reassembled, with the tick of its datagram's time since the first, 'S'
// for client to server and 'R' the other way, and client slots numbered
// from 0 in order of appearance. It returns the number of records.
func WriteOBCTrace(w io.Writer, r *capture.Reader, opt OBCTraceOptions) (int, error) {
	if opt.Tick <= 0 {
		opt.Tick = capture.DefaultTraceTick
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("OBCTRACE")
	type key struct {
		client netip.AddrPort
		c2s    bool
		seq    uint16
	}
	seen := map[key]string{} // the payload last sent under a seq: a retransmission repeats it
	frags := map[key]*pendingMsg{}
	slots := map[netip.AddrPort]byte{}
	var p capture.Packet
	var dg transport.Datagram
	var first time.Time
	records := 0
	plain := r.Plaintext()
	put := func(t time.Time, c2s bool, slot byte, payload []byte) {
		var h [8]byte
		binary.LittleEndian.PutUint32(h[0:4], uint32(t.Sub(first)/opt.Tick))
		h[4] = 'R'
		if c2s {
			h[4] = 'S'
		}
		h[5] = slot
		binary.LittleEndian.PutUint16(h[6:8], uint16(len(payload)))
		bw.Write(h[:])
		bw.Write(payload)
		records++
	}
	for {
		err := r.Next(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			return records, err
		}
		if first.IsZero() {
			first = p.Time
		}
		if !opt.Server.IsValid() {
			opt.Server = p.Dst
			if p.Src.Port() == capture.DefaultPort {
				opt.Server = p.Src
			}
		}
		if len(p.Payload) == 0 || p.Payload[0] == '\\' {
			continue
		}
		c2s := p.Dst == opt.Server
		client := p.Dst
		if c2s {
			client = p.Src
		}
		slot, ok := slots[client]
		if !ok {
			slot = byte(len(slots))
			slots[client] = slot
		}
		b := append([]byte(nil), p.Payload...)
		if !plain {
			cipher.Decrypt(b)
		}
		transport.Decode(b, &dg)
		for _, m := range dg.Messages {
			if m.Type != transport.TypeData || len(m.Payload) == 0 {
				continue
			}
			k := key{client, c2s, m.Seq}
			switch {
			case !m.Reliable:
				put(p.Time, c2s, slot, m.Payload)
			case !m.Fragment:
				if prev, ok := seen[k]; !ok || prev != string(m.Payload) {
					seen[k] = string(m.Payload)
					put(p.Time, c2s, slot, m.Payload)
				}
			default:
				if _, ok := seen[k]; ok {
					continue // a fragment resent after its message was whole
				}
				fp := frags[k]
				if fp == nil {
					fp = &pendingMsg{parts: map[uint8][]byte{}}
					frags[k] = fp
				}
				if m.HasFragTotal {
					fp.total = int(m.FragTotal)
				}
				fp.parts[m.FragIdx] = append([]byte(nil), m.Payload...)
				if fp.total == 0 || len(fp.parts) < fp.total {
					continue
				}
				var all []byte
				for i := 0; i < fp.total; i++ {
					all = append(all, fp.parts[uint8(i)]...)
				}
				seen[k] = string(all)
				delete(frags, k)
				put(p.Time, c2s, slot, all)
			}
		}
	}
	return records, bw.Flush()
}

// pendingMsg is a fragmented message being reassembled.
type pendingMsg struct {
	total int
	parts map[uint8][]byte
}
