package dissect

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// testdata is the module's testdata directory, relative to this package.
const testdata = "../testdata"

// seen is what a test keeps of one dissected datagram (the Datagram itself
// is reused).
type seen struct {
	frame int
	anoms []anomaly.Anomaly
	names map[string][]string // hash field name -> resolved names, checksum responses
	ops   []*game.Opcode      // opcodes of payload-bearing messages (reassembled included)
}

func (s *seen) codes() []string {
	var c []string
	for _, a := range s.anoms {
		c = append(c, a.Code.String())
	}
	return c
}

func keep(dg *Datagram) seen {
	s := seen{frame: dg.Frame, anoms: slices.Clone(dg.Anomalies), names: map[string][]string{}}
	add := func(op *game.Opcode, fs []game.Field) {
		if op == nil {
			return
		}
		s.ops = append(s.ops, op)
		for _, f := range fs {
			if f.Kind == game.KindHash && f.Note != "" {
				s.names[f.Name] = append(s.names[f.Name], f.Note)
			}
		}
	}
	for i := range dg.Msgs {
		m := &dg.Msgs[i]
		add(m.Opcode, m.Fields.List)
		if r := m.Reassembled; r != nil {
			add(r.Opcode, r.Fields.List)
		}
	}
	return s
}

// dissectFile runs a capture through a Dissector as `bcdump read` does.
func dissectFile(t *testing.T, path string, opt Options) ([]seen, *Dissector) {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := NewSession(SessionOptions{Options: opt})
	var out []seen
	if err := s.Run(context.Background(), r, SinkFuncs{OnDatagram: func(dg *Datagram) error { out = append(out, keep(dg)); return nil }}); err != nil {
		t.Fatal(err)
	}
	return out, s.d
}

func loadVanilla(t *testing.T) *checksum.Manifest {
	t.Helper()
	m, err := checksum.LoadFile(filepath.Join(testdata, "vanilla-1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func checksumAnoms(out []seen) []string {
	var c []string
	for _, s := range out {
		for _, a := range s.anoms {
			if a.Code.Group() == anomaly.Checksum {
				c = append(c, fmt.Sprintf("%d %s@%d", s.frame, a.Code, a.Offset))
			}
		}
	}
	return c
}

// The stock excerpts (seed 003 trace) with vanilla-1.1.json: every name
// hash of the four answers resolves, the four content hashes that differ
// from the manifest (protocol-facts 9.4) are notes naming the file. The
// excerpt lacks the fragmented round 2 answer, but frame 7 (trace #21) ACKs
// its fragments: the capture missed it, so round 3 raises no order finding.
func TestHandshakeStockExcerpts(t *testing.T) {
	path := filepath.Join(testdata, "captures", "stock-excerpts.pcap")
	m := loadVanilla(t)
	tests := []struct {
		name      string
		opt       Options
		wantAnoms []string
		names     map[int]map[string][]string
	}{
		{"no manifest", Options{}, nil, nil},
		{"vanilla", Options{Manifest: m}, []string{
			"3 checksum-file-mismatch@-1", "5 checksum-file-mismatch@-1",
			"8 checksum-file-mismatch@-1", "8 checksum-file-mismatch@-1",
		}, map[int]map[string][]string{
			3: {"ref_hash": {"60"}, "dir_hash": {"scripts"}, "name_hash": {"App.pyc"}},
			5: {"dir_hash": {"scripts"}, "name_hash": {"Autoexec.pyc"}},
			8: {"dir_hash": {"scripts/mainmenu"}, "name_hash": {"CardSpecificSetup.pyc", "KeyboardConfig.pyc", "__init__.pyc", "mainmenu.pyc"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := dissectFile(t, path, tt.opt)
			if got := checksumAnoms(out); !slices.Equal(got, tt.wantAnoms) {
				t.Errorf("checksum anomalies\n got %q\nwant %q", got, tt.wantAnoms)
			}
			for _, s := range out {
				want := tt.names[s.frame]
				if len(want) == 0 && len(s.names) != 0 && s.frame != 10 {
					t.Errorf("frame %d: unexpected names %v", s.frame, s.names)
				}
				for k, v := range want {
					if !slices.Equal(s.names[k], v) {
						t.Errorf("frame %d %s names %q, want %q", s.frame, k, s.names[k], v)
					}
				}
			}
			if tt.opt.Manifest == nil {
				return
			}
			// Round 0xFF (frame 10): vanilla-1.1.json has no such entry, the
			// stock names fill in; every name hash of that answer resolves.
			ff := out[9].names
			if len(ff["name_hash"]) != 28+5 || ff["dir_hash"][0] != "Scripts/Multiplayer" {
				t.Errorf("round 0xFF: %d names resolved (want 33), dir %q", len(ff["name_hash"]), ff["dir_hash"])
			}
			for _, a := range out[2].anoms {
				if !strings.Contains(a.Message(), "App.pyc") || a.Msg != 0 || a.Severity() != anomaly.Note {
					t.Errorf("frame 3 anomaly %+v should be a note about App.pyc on message 0", a)
				}
			}
		})
	}
}

// The OpenBC sessions: five (and three) full joins with no order finding
// and no missing ChecksumComplete, every opcode a known one. Their test
// client is not stock-shaped in two ways the analyzer must say: its round 0
// reference hash is StringHash("scripts"), and it sends leaf-name dir
// hashes (vanilla-1.1.json's "ships", "mainmenu") for rounds 2, 3, 0xFF.
func TestHandshakeOpenBCSessions(t *testing.T) {
	dir := filepath.Join(testdata, "captures")
	for _, tt := range []struct {
		name           string
		joins          int
		frames, events int
	}{
		{"openbc-session-2", 5, 160, 0},
		{"openbc-session-3", 3, 4325, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, d := dissectFile(t, filepath.Join(dir, tt.name+".pcap"), Options{Manifest: loadVanilla(t)})
			count := map[anomaly.Code]int{}
			for _, s := range out {
				for _, a := range s.anoms {
					count[a.Code]++
				}
				for _, op := range s.ops {
					if !op.Known {
						t.Errorf("frame %d: opcode 0x%02X (%s) is not a known opcode", s.frame, op.Code, op.Name)
					}
				}
			}
			for _, c := range []anomaly.Code{anomaly.ChecksumRoundOrder, anomaly.ChecksumMissingComplete, anomaly.ChecksumBitBytePlain, anomaly.ChecksumTreeMalformed} {
				if count[c] != 0 {
					t.Errorf("%d %s anomalies, want none", count[c], c)
				}
			}
			if count[anomaly.ChecksumVersion] != tt.joins || count[anomaly.ChecksumDirHash] != 3*tt.joins {
				t.Errorf("checksum-version %d, checksum-dir-hash %d; want %d and %d (one per join, three per join)",
					count[anomaly.ChecksumVersion], count[anomaly.ChecksumDirHash], tt.joins, 3*tt.joins)
			}
			// The per-flow statistics count the findings too.
			total := 0
			for _, f := range d.Flows() {
				total += f.Anomalies[anomaly.ChecksumVersion]
			}
			if total != tt.joins {
				t.Errorf("flow stats count %d checksum-version, want %d", total, tt.joins)
			}
		})
	}
}

// The bundled sample: a stock-shaped handshake whose round 2 answer is
// fragmented; the reassembled answer is fed once, so the order is clean.
// With the manifest its synthetic file hashes are unknown: eight are
// listed and the rest folded into one anomaly.
func TestHandshakeSample(t *testing.T) {
	path := filepath.Join(testdata, "sample.pcap")
	out, _ := dissectFile(t, path, Options{})
	if got := checksumAnoms(out); len(got) != 0 {
		t.Errorf("sample: checksum anomalies %q, want none", got)
	}
	out, _ = dissectFile(t, path, Options{Manifest: loadVanilla(t)})
	for _, s := range out {
		if s.frame != 14 {
			continue
		}
		var unknown []anomaly.Anomaly
		for _, a := range s.anoms {
			if a.Code == anomaly.ChecksumFileUnknown {
				unknown = append(unknown, a)
			}
		}
		if len(unknown) != maxFindingsPerCode+1 || !strings.HasPrefix(unknown[maxFindingsPerCode].Message(), "93 more") {
			t.Errorf("frame 14: %d file-unknown anomalies, want %d then a fold of 93", len(unknown), maxFindingsPerCode+1)
		}
		if s.names["name_hash"][0] != "Akira.pyc" {
			t.Errorf("reassembled round 2: first name %q, want Akira.pyc", s.names["name_hash"])
		}
	}
}

// synth drives a Dissector with scripted plaintext datagrams between one
// client and the host, enciphered like real traffic.
type synth struct {
	t      *testing.T
	d      *Dissector
	client netip.AddrPort
	frame  int
	now    time.Time
	seq    [2]uint16 // next reliable seq: [0] client, [1] host
}

func newSynth(t *testing.T, opt Options) *synth {
	return &synth{t: t, d: New(opt), client: netip.MustParseAddrPort("10.0.0.2:4000"),
		now: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
}

var hostAddr = netip.MustParseAddrPort("10.0.0.1:22101")

// datagram sends plain (header included) and returns what was kept.
func (s *synth) datagram(fromHost bool, plain []byte) seen {
	s.t.Helper()
	s.frame++
	s.now = s.now.Add(10 * time.Millisecond)
	wire := slices.Clone(plain)
	cipher.Encrypt(wire)
	p := capture.Packet{Frame: s.frame, Time: s.now, Src: s.client, Dst: hostAddr, Payload: wire}
	if fromHost {
		p.Src, p.Dst = hostAddr, s.client
	}
	return keep(s.d.Packet(&p))
}

// send sends each payload as a reliable 0x32 message of one datagram.
func (s *synth) send(fromHost bool, payloads ...[]byte) seen {
	s.t.Helper()
	peer, dir := uint8(2), 0
	if fromHost {
		peer, dir = 1, 1
	}
	dg := transporttest.AppendHeader(nil, peer, uint8(len(payloads)))
	for _, p := range payloads {
		dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: s.seq[dir]}, p)
		s.seq[dir]++
	}
	return s.datagram(fromHost, dg)
}

// resend repeats the host's message with seq (a retransmission).
func (s *synth) resend(seq uint16, p []byte) seen {
	dg := transporttest.AppendHeader(nil, 1, 1)
	dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: seq}, p)
	return s.datagram(true, dg)
}

// sendFragments sends a client payload in n fragments, one per datagram,
// and returns what the last (completing) datagram kept.
func (s *synth) sendFragments(p []byte, n int) seen {
	var last seen
	size := (len(p) + n - 1) / n
	seq := s.seq[0]
	s.seq[0]++
	for i := 0; i < n; i++ {
		part := p[min(i*size, len(p)):min((i+1)*size, len(p))]
		dg := transporttest.AppendHeader(nil, 2, 1)
		dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: seq, Fragment: true, FragIdx: uint8(i), FragTotal: uint8(n)}, part)
		last = s.datagram(false, dg)
	}
	return last
}

// connect plays the stock Connect request and the host's id assignment.
func (s *synth) connect() {
	s.datagram(false, hexBytes("FF 01 03 0F C0 00 00 0A 0A 0A EF 5F 0A 00 00 00 00"))
	s.datagram(true, hexBytes("01 01 03 06 C0 00 00 02"))
}

func hexBytes(h string) []byte {
	var b []byte
	for _, f := range strings.Fields(h) {
		var v byte
		fmt.Sscanf(f, "%02X", &v)
		b = append(b, v)
	}
	return b
}

func req(round uint8) []byte {
	for _, rs := range checksum.Rounds {
		if rs.Round == round {
			return checksum.AppendRequest(nil, &checksum.Request{Round: round, Dir: []byte(rs.Dir), Filter: []byte(rs.Filter), Recursive: rs.Recursive})
		}
	}
	panic("not a stock round")
}

func resp(round uint8, files ...checksum.File) *checksum.Response {
	for _, rs := range checksum.Rounds {
		if rs.Round == round {
			return &checksum.Response{Round: round, HasRef: round == 0, RefHash: checksum.VersionHash,
				DirHash: checksum.StringHash(checksum.TrimDir(rs.Dir)), Root: &checksum.Dir{Files: files}}
		}
	}
	panic("not a stock round")
}

func respBytes(round uint8) []byte { return checksum.AppendResponse(nil, resp(round)) }

var (
	complete = []byte{checksum.OpComplete}
	settings = hexBytes("00 00 00 05 42 61 00 25 00 4D 75 6C 74 69 70 6C 61 79 65 72 2E 45 70 69 73 6F 64 65 2E 4D 69 73 73 69 6F 6E 31 2E 4D 69 73 73 69 6F 6E 31")
	gameInit = []byte{0x01}
)

// stock plays rounds from..0xFF one at a time.
func (s *synth) rounds(rs ...uint8) {
	for _, r := range rs {
		s.send(true, req(r))
		s.send(false, respBytes(r))
	}
}

// Each finding code, raised through the dissector on synthetic traffic:
// the code lands on the datagram that carries the offending payload, with
// the message index and the byte offset in the datagram (payload offset 7
// for the first message: header 2 + 0x32 header 5).
func TestHandshakeFindings(t *testing.T) {
	const pay = 7 // payload offset of the only message of a send
	plainFlag := checksum.AppendRequest(nil, &checksum.Request{Round: 0, Dir: []byte("scripts/"), Filter: []byte("App.pyc"), PlainFlag: true})
	badRef := resp(0)
	badRef.RefHash = 0x4DAFCB2F
	badDir := resp(1)
	badDir.DirHash = 0x5FF2585F // StringHash("scripts/"): the slash kept
	m := &checksum.Manifest{Directories: []checksum.ManifestRound{{Index: 0, Path: "scripts", Files: []checksum.ManifestFile{
		{Filename: "App.pyc", NameHash: 0x373EB677, ContentHash: 0xF8A0A740},
	}}}}
	type want struct {
		code   anomaly.Code
		offset int // anomaly.NoOffset when none
		msg    int
		text   string
	}
	tests := []struct {
		name string
		opt  Options
		play func(s *synth) seen // returns the datagram that must carry the finding
		want []want
	}{
		{"stock order is clean", Options{}, func(s *synth) seen {
			s.connect()
			s.rounds(0, 1, 2, 3, 0xFF)
			return s.send(true, complete, settings, gameInit)
		}, nil},
		{"round sent before the answer", Options{}, func(s *synth) seen {
			s.connect()
			s.send(true, req(0))
			return s.send(true, req(1))
		}, []want{{anomaly.ChecksumRoundOrder, pay + 1, 0, "before the response to round 0"}}},
		{"round skipped", Options{}, func(s *synth) seen {
			s.connect()
			s.rounds(0, 1)
			return s.send(true, req(3))
		}, []want{{anomaly.ChecksumRoundOrder, pay + 1, 0, "skipping round 2"}}},
		{"0xFF before round 3", Options{}, func(s *synth) seen {
			s.connect()
			s.rounds(0, 1, 2)
			return s.send(true, req(0xFF))
		}, []want{{anomaly.ChecksumRoundOrder, pay + 1, 0, "before round 3"}}},
		{"plain recursive byte", Options{}, func(s *synth) seen {
			s.connect()
			return s.send(true, plainFlag)
		}, []want{{anomaly.ChecksumBitBytePlain, pay + len(plainFlag) - 1, 0, "plain byte"}}},
		{"settings without 0x28", Options{}, func(s *synth) seen {
			s.connect()
			s.rounds(0, 1, 2, 3, 0xFF)
			return s.send(true, settings, gameInit)
		}, []want{{anomaly.ChecksumMissingComplete, pay, 0, "Settings 0x00"}}},
		{"second message of a datagram", Options{}, func(s *synth) seen {
			s.connect()
			s.rounds(0, 1, 2, 3, 0xFF)
			// GameInit alone first, as message 2 after an unrelated chat.
			return s.send(true, hexBytes("2C 01 00 00 00 02 00 68 69"), gameInit)
		}, []want{{anomaly.ChecksumMissingComplete, 7 + 9 + 5, 1, "GameInit 0x01"}}},
		{"reference hash", Options{}, func(s *synth) seen {
			s.connect()
			s.send(true, req(0))
			return s.send(false, checksum.AppendResponse(nil, badRef))
		}, []want{{anomaly.ChecksumVersion, pay + 2, 0, "0x4DAFCB2F"}}},
		{"dir hash", Options{}, func(s *synth) seen {
			s.connect()
			s.rounds(0)
			s.send(true, req(1))
			return s.send(false, checksum.AppendResponse(nil, badDir))
		}, []want{{anomaly.ChecksumDirHash, pay + 2, 0, `StringHash("scripts")`}}},
		{"tree malformed", Options{}, func(s *synth) seen {
			s.connect()
			s.send(true, req(0))
			p := respBytes(0)
			return s.send(false, p[:len(p)-1])
		}, []want{{anomaly.PayloadMalformed, pay + 10, 0, ""}, {anomaly.ChecksumTreeMalformed, pay + 10, 0, "file_count"}}},
		{"file mismatch", Options{Manifest: m}, func(s *synth) seen {
			s.connect()
			s.send(true, req(0))
			return s.send(false, checksum.AppendResponse(nil, resp(0, checksum.File{NameHash: 0x373EB677, ContentHash: 0xF8A0A768})))
		}, []want{{anomaly.ChecksumFileMismatch, anomaly.NoOffset, 0, "scripts/App.pyc"}}},
		{"file unknown", Options{Manifest: m}, func(s *synth) seen {
			s.connect()
			s.send(true, req(0))
			return s.send(false, checksum.AppendResponse(nil, resp(0, checksum.File{NameHash: 0x12345678, ContentHash: 1})))
		}, []want{{anomaly.ChecksumFileUnknown, anomaly.NoOffset, 0, "0x12345678"}}},
		{"partial: capture starts mid-handshake", Options{}, func(s *synth) seen {
			s.rounds(2, 3, 0xFF)
			return s.send(true, complete, settings, gameInit)
		}, nil},
		{"connect seen: starting at round 2 is a skip", Options{}, func(s *synth) seen {
			s.connect()
			return s.send(true, req(2))
		}, []want{{anomaly.ChecksumRoundOrder, pay + 1, 0, "skipping round 0"}}},
		{"partial: settings alone", Options{}, func(s *synth) seen {
			return s.send(true, settings)
		}, nil},
		{"connect seen: settings alone", Options{}, func(s *synth) seen {
			s.connect()
			return s.send(true, settings)
		}, []want{{anomaly.ChecksumMissingComplete, pay, 0, "Settings"}}},
		{"retransmitted request is not a repeat", Options{}, func(s *synth) seen {
			s.connect()
			s.rounds(0)
			s.send(true, req(1))
			return s.resend(1, req(1))
		}, nil},
		{"client settings ignored", Options{}, func(s *synth) seen {
			s.connect()
			return s.send(false, settings)
		}, nil},
		{"reconnect starts over", Options{}, func(s *synth) seen {
			s.connect()
			s.rounds(0, 1)
			s.seq = [2]uint16{}
			s.connect()
			return s.send(true, req(0))
		}, nil},
		{"fragmented answer fed once, reassembled", Options{}, func(s *synth) seen {
			s.connect()
			s.rounds(0, 1)
			s.send(true, req(2))
			s.sendFragments(respBytes(2), 3)
			return s.send(true, req(3))
		}, nil},
		{"fragmented malformed answer", Options{}, func(s *synth) seen {
			s.connect()
			s.send(true, req(0))
			p := checksum.AppendResponse(nil, badRef)
			return s.sendFragments(p, 2)
		}, []want{{anomaly.ChecksumVersion, anomaly.NoOffset, 0, "in the reassembled payload at offset 2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSynth(t, tt.opt)
			got := tt.play(s)
			var anoms []anomaly.Anomaly
			for _, a := range got.anoms {
				if a.Code != anomaly.AckUnknown && a.Code != anomaly.Retransmit {
					anoms = append(anoms, a)
				}
			}
			if len(anoms) != len(tt.want) {
				t.Fatalf("frame %d anomalies %v, want %d: %+v", got.frame, got.codes(), len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				a := anoms[i]
				if a.Code != w.code || a.Offset != w.offset || a.Msg != w.msg || !strings.Contains(a.Message(), w.text) {
					t.Errorf("anomaly %d = %+v\nwant code %s offset %d msg %d containing %q", i, a, w.code, w.offset, w.msg, w.text)
				}
			}
			for _, a := range anoms {
				if a.Severity() == 0 {
					t.Errorf("%s without a severity", a.Code)
				}
			}
		})
	}
}

// A datagram without a checksum opcode, Connect or reassembled payload
// touches no handshake state.
func TestHandshakeUntouched(t *testing.T) {
	s := newSynth(t, Options{})
	s.send(false, hexBytes("2C 01 00 00 00 02 00 68 69"))
	if st := s.d.track.Current().State(); st != nil {
		t.Errorf("handshake state %+v after a chat, want none", st)
	}
}

// Handshake state lives with the transport flow, so the tracker's bound on
// flow state (MaxFlowBytes, which counts it) bounds it: however many clients
// connect, the most recent flows keep their state and an evicted flow's
// state is gone with it.
func TestHandshakeFlowBound(t *testing.T) {
	s := newSynth(t, Options{})
	s.d.track = transport.NewTracker(transport.Config{MaxFlowBytes: 256 << 10})
	const clients = 500
	addr := func(i int) netip.AddrPort {
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), 4000)
	}
	for i := range clients {
		s.client = addr(i)
		s.connect()
		s.send(true, req(0))
		if _, ok := s.d.track.Current().State().(*hsFlow); !ok {
			t.Fatalf("client %d: no handshake state on its flow", i)
		}
	}
	if n := s.d.track.ActiveFlows(); n >= clients || n < 10 || s.d.track.TrackedBytes() > 256<<10 {
		t.Fatalf("%d flows active holding %d bytes after %d clients, want fewer within 256 KB", n, s.d.track.TrackedBytes(), clients)
	}
	// The newest client's round 0 is still outstanding: its answer matches.
	if got := s.send(false, respBytes(0)); len(checksumAnoms([]seen{got})) != 0 {
		t.Errorf("newest flow lost its state: %v", got.codes())
	}
	// The first client's flow was evicted long ago: it comes back as a new
	// flow without handshake state.
	s.client = addr(0)
	s.send(false, hexBytes("2C 01 00 00 00 02 00 68 69"))
	if st := s.d.track.Current().State(); st != nil {
		t.Errorf("evicted flow kept its handshake state %+v", st)
	}
}

// Names are resolved only with a manifest; without one the hash fields
// carry no note (the goldens of plain `read` stay as they were).
func TestResolveNamesNeedsManifest(t *testing.T) {
	for _, tt := range []struct {
		opt  Options
		want []string
	}{
		{Options{}, nil},
		{Options{Manifest: &checksum.Manifest{VersionString: "60"}}, []string{"60"}},
	} {
		s := newSynth(t, tt.opt)
		s.connect()
		s.send(true, req(0))
		got := s.send(false, checksum.AppendResponse(nil, resp(0, checksum.File{NameHash: 0x373EB677})))
		if !slices.Equal(got.names["ref_hash"], tt.want) {
			t.Errorf("manifest %v: ref_hash names %q, want %q", tt.opt.Manifest != nil, got.names["ref_hash"], tt.want)
		}
	}
}

// Following the handshake costs nothing for datagrams without checksum
// traffic (most of a session: StateUpdates).
func BenchmarkAdvanceStateUpdate(b *testing.B) {
	d := New(Options{})
	dg := transporttest.AppendHeader(nil, 2, 1)
	dg = transporttest.AppendData(dg, transporttest.DataHeader{}, hexBytes("1C 00 00 00 40 00 00 00 00 00"))
	cipher.Encrypt(dg)
	p := capture.Packet{Frame: 1, Time: time.Unix(0, 0), Src: netip.MustParseAddrPort("10.0.0.2:4000"), Dst: hostAddr, Payload: dg}
	var out Datagram
	b.ReportAllocs()
	b.SetBytes(int64(len(dg)))
	for b.Loop() {
		d.Decode(&out, &p)
		d.Advance(&out)
	}
}

// FuzzHandshake plays arbitrary payload sequences through the dissector
// with a manifest: no panic, every anomaly points at a message of its
// datagram and within it (a payload that ends early is flagged at its
// end), and the per-flow state stays bounded. The input
// is split at 0xFE 0xFE; each piece's first byte picks the sender and
// whether to fragment it.
func FuzzHandshake(f *testing.F) {
	join := func(parts ...[]byte) []byte {
		var b []byte
		for i, p := range parts {
			if i > 0 {
				b = append(b, 0xFE, 0xFE)
			}
			b = append(b, p...)
		}
		return b
	}
	host := func(p []byte) []byte { return append([]byte{1}, p...) }
	client := func(p []byte) []byte { return append([]byte{0}, p...) }
	frag := func(p []byte) []byte { return append([]byte{2}, p...) }
	var stock [][]byte
	for _, rs := range checksum.Rounds {
		stock = append(stock, host(req(rs.Round)), client(respBytes(rs.Round)))
	}
	stock = append(stock, host(complete), host(settings), host(gameInit))
	f.Add(join(stock...))
	f.Add(join(host(req(0)), host(req(1)), frag(respBytes(0)), host(settings)))
	bad := checksum.AppendResponse(nil, resp(0, checksum.File{NameHash: 0x373EB677, ContentHash: 1}))
	f.Add(join(host(req(0)), client(bad[:len(bad)-3]), frag(bad), host(complete), host(complete)))
	m := &checksum.Manifest{Directories: []checksum.ManifestRound{{Index: 0, Path: "scripts", Files: []checksum.ManifestFile{
		{Filename: "App.pyc", NameHash: 0x373EB677, ContentHash: 0xF8A0A740},
	}}}}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := newSynth(t, Options{Manifest: m})
		s.connect()
		for _, piece := range splitPieces(in) {
			if len(piece) < 2 || len(piece) > 4000 {
				continue
			}
			var got seen
			var size int
			switch piece[0] % 3 {
			case 0, 1:
				got = s.send(piece[0]%3 == 1, piece[1:])
				size = 2 + 5 + len(piece) - 1
			case 2:
				got = s.sendFragments(piece[1:], 2)
				size = 1 << 16
			}
			for _, a := range got.anoms {
				if a.Msg < anomaly.NoMsg || a.Msg > 0 || a.Offset != anomaly.NoOffset && (a.Offset < 0 || a.Offset > size) {
					t.Fatalf("anomaly %+v outside its datagram (%d bytes)", a, size)
				}
			}
		}
	})
}

func splitPieces(in []byte) [][]byte {
	var out [][]byte
	for {
		i := strings.Index(string(in), "\xFE\xFE")
		if i < 0 {
			return append(out, in)
		}
		out = append(out, in[:i])
		in = in[i+2:]
	}
}
