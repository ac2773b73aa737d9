package transport

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/transport/anomaly"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// describe renders a message compactly for comparison with hand decodes.
func describe(m *Message) string {
	if m.Type == TypeACK {
		s := fmt.Sprintf("ACK seq=%d", m.Seq)
		if m.AckFrag {
			s += fmt.Sprintf(" frag=%d", m.FragIdx)
		}
		if m.AckLow {
			s += " low"
		}
		return s
	}
	s := m.Type.Name()
	if m.Reliable {
		s += fmt.Sprintf(" rel seq=%d", m.Seq)
	}
	if m.Ordered {
		s += " ord"
	}
	if m.Fragment {
		s += fmt.Sprintf(" frag=%d", m.FragIdx)
		if m.HasFragTotal {
			s += fmt.Sprintf("/%d", m.FragTotal)
		}
	}
	s += fmt.Sprintf(" len=%d", m.Len)
	if m.Type == TypeData && len(m.Payload) > 0 {
		s += fmt.Sprintf(" op=%02X", m.Payload[0])
	}
	return s
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Hand decodes of the 18 stock datagrams in testdata/captures/stock-excerpts
// (protocol-facts 4 and 11; trace packet #21 holds three messages, not four).
var stockHandDecodes = [][]string{
	{"Connect rel seq=0 ord len=15"},
	{"Connect rel seq=0 ord len=6", "Data rel seq=0 len=27 op=20"},
	{"Data rel seq=0 len=26 op=21"},
	{"ACK seq=0", "Data rel seq=1 len=32 op=20"},
	{"Data rel seq=1 len=22 op=21"},
	{"Data rel seq=2 len=30 op=20"},
	{"ACK seq=2 frag=1", "ACK seq=2 frag=2", "Data rel seq=3 len=33 op=20"},
	{"ACK seq=3", "Data rel seq=3 len=46 op=21"},
	{"ACK seq=3", "Data rel seq=4 len=36 op=20"},
	{"Data rel seq=4 len=273 op=21"},
	{"Data rel seq=5 len=6 op=28", "Data rel seq=6 len=51 op=00", "Data rel seq=7 len=6 op=01"},
	{"Data rel seq=5 len=7 op=2A"},
	{"Data rel seq=1 len=17 op=2C"},
	{"Data rel seq=13 len=23 op=19"},
	{"Data rel seq=15 len=19 op=29"},
	{"Data rel seq=9 len=22 op=08"},
	{"Disconnect rel seq=2 ord len=10", "ACK seq=39", "ACK seq=40"},
	{"ACK seq=2 low"},
}

func readJSONL(t *testing.T, path string, each func(line []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		each(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeStockExcerpts(t *testing.T) {
	path := filepath.Join(testdata, "captures", "stock-excerpts.source.jsonl")
	i := 0
	var dg Datagram
	readJSONL(t, path, func(line []byte) {
		var row struct {
			Note     string `json:"note"`
			PlainHex string `json:"plain_hex"`
		}
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatal(err)
		}
		if i >= len(stockHandDecodes) {
			t.Fatalf("more rows than hand decodes")
		}
		want := stockHandDecodes[i]
		i++
		Decode(mustHex(t, row.PlainHex), &dg)
		if len(dg.Anomalies) != 0 {
			t.Errorf("frame %d (%s): anomalies %+v", i, row.Note, dg.Anomalies)
		}
		if int(dg.MsgCount) != len(want) || len(dg.Messages) != len(want) {
			t.Fatalf("frame %d (%s): msg_count %d, decoded %d, want %d", i, row.Note, dg.MsgCount, len(dg.Messages), len(want))
		}
		for j := range want {
			if got := describe(&dg.Messages[j]); got != want[j] {
				t.Errorf("frame %d msg %d: got %q, want %q", i, j, got, want[j])
			}
		}
	})
	if i != len(stockHandDecodes) {
		t.Fatalf("read %d rows, want %d", i, len(stockHandDecodes))
	}
}

// truthMsg mirrors a message of openbc-session-2.truth.jsonl, written by an
// independent parser of the same framing.
type truthMsg struct {
	Type          string `json:"type"`
	Offset        int    `json:"offset"`
	Len           int    `json:"len"`
	Seq           *int   `json:"seq"`
	Flags         string `json:"flags"`
	FragAck       *bool  `json:"frag_ack"`
	LowCategory   *bool  `json:"low_category"`
	FragIdx       *int   `json:"frag_idx"`
	FlagsLen      string `json:"flags_len"`
	Reliable      *bool  `json:"reliable"`
	Ordered       *bool  `json:"ordered"`
	Fragment      *bool  `json:"fragment"`
	TotalFrags    *int   `json:"total_frags"`
	PayloadOffset *int   `json:"payload_offset"`
	PayloadLen    *int   `json:"payload_len"`
	Opcode        string `json:"opcode"`
	Error         string `json:"error"`
}

type truthRow struct {
	Frame    int        `json:"frame"`
	Kind     string     `json:"kind"`
	PeerID   string     `json:"peer_id"`
	MsgCount int        `json:"msg_count"`
	ParseOK  bool       `json:"parse_ok"`
	Msgs     []truthMsg `json:"msgs"`
	Plain    string     `json:"plain_hex"`
}

func hexNum(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 32)
	if err != nil {
		t.Fatalf("bad hex %q", s)
	}
	return int(v)
}

func TestDecodeOpenBCTruth(t *testing.T) {
	path := filepath.Join(testdata, "captures", "openbc-session-2.truth.jsonl")
	var dg Datagram
	games := 0
	readJSONL(t, path, func(line []byte) {
		var row truthRow
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatal(err)
		}
		if row.Kind != "bc" {
			return
		}
		games++
		Decode(mustHex(t, row.Plain), &dg)
		if int(dg.PeerID) != hexNum(t, row.PeerID) || int(dg.MsgCount) != row.MsgCount {
			t.Errorf("frame %d: peer %d count %d", row.Frame, dg.PeerID, dg.MsgCount)
		}
		if !row.ParseOK {
			if len(dg.Anomalies) == 0 {
				t.Errorf("frame %d: truth says parse failed (%v), we report no anomaly", row.Frame, row.Msgs)
			}
		} else if len(dg.Anomalies) != 0 {
			t.Errorf("frame %d: unexpected anomalies %+v", row.Frame, dg.Anomalies)
		}
		good := 0
		for _, tm := range row.Msgs {
			if tm.Error == "" {
				good++
			}
		}
		if len(dg.Messages) != good {
			t.Fatalf("frame %d: decoded %d messages, truth has %d good", row.Frame, len(dg.Messages), good)
		}
		for j := 0; j < good; j++ {
			checkTruthMsg(t, row.Frame, j, &dg.Messages[j], &row.Msgs[j])
		}
	})
	if games == 0 {
		t.Fatal("no game datagrams in truth file")
	}
}

func checkTruthMsg(t *testing.T, frame, j int, m *Message, tm *truthMsg) {
	t.Helper()
	errorf := func(field string, got, want any) {
		t.Errorf("frame %d msg %d %s: got %v, want %v", frame, j, field, got, want)
	}
	if int(m.Type) != hexNum(t, tm.Type) {
		errorf("type", m.Type, tm.Type)
	}
	if m.Offset != tm.Offset {
		errorf("offset", m.Offset, tm.Offset)
	}
	if m.Len != tm.Len {
		errorf("len", m.Len, tm.Len)
	}
	if tm.Seq != nil && int(m.Seq) != *tm.Seq {
		errorf("seq", m.Seq, *tm.Seq)
	}
	if m.Type == TypeACK {
		if int(m.AckFlags) != hexNum(t, tm.Flags) || m.AckFrag != *tm.FragAck || m.AckLow != *tm.LowCategory {
			errorf("ack flags", m.AckFlags, tm.Flags)
		}
		if m.AckFrag && int(m.FragIdx) != *tm.FragIdx {
			errorf("frag_idx", m.FragIdx, *tm.FragIdx)
		}
		return
	}
	if int(m.FlagsLen) != hexNum(t, tm.FlagsLen) || m.Reliable != *tm.Reliable || m.Ordered != *tm.Ordered {
		errorf("flags_len", fmt.Sprintf("0x%04X", m.FlagsLen), tm.FlagsLen)
	}
	if tm.Fragment != nil && m.Fragment != *tm.Fragment {
		errorf("fragment", m.Fragment, *tm.Fragment)
	}
	if tm.FragIdx != nil && int(m.FragIdx) != *tm.FragIdx {
		errorf("frag_idx", m.FragIdx, *tm.FragIdx)
	}
	if tm.TotalFrags != nil && (!m.HasFragTotal || int(m.FragTotal) != *tm.TotalFrags) {
		errorf("total_frags", m.FragTotal, *tm.TotalFrags)
	}
	if tm.PayloadOffset != nil && m.PayloadOff != *tm.PayloadOffset {
		errorf("payload_offset", m.PayloadOff, *tm.PayloadOffset)
	}
	if tm.PayloadLen != nil && len(m.Payload) != *tm.PayloadLen {
		errorf("payload_len", len(m.Payload), *tm.PayloadLen)
	}
	if tm.Opcode != "" && (len(m.Payload) == 0 || int(m.Payload[0]) != hexNum(t, tm.Opcode)) {
		errorf("opcode", m.Payload, tm.Opcode)
	}
}

// Bad input: decoding stops where it must, keeps what came before, and says
// what happened at which offset.
func TestDecodeBadInput(t *testing.T) {
	tests := []struct {
		name     string
		hex      string
		wantMsgs int
		code     anomaly.Code
		offset   int
	}{
		{"empty", "", 0, anomaly.ShortDatagram, 0},
		{"one byte", "02", 0, anomaly.ShortDatagram, 0},
		{"header only, count 0", "0200", 0, 0, 0},
		{"zero length data", "0201 320000", 0, anomaly.BadLength, 2},
		{"length below reliable header", "0201 320480 0000", 0, anomaly.BadLength, 2},
		{"zero length low type", "0201 000000", 0, anomaly.BadLength, 2},
		{"fragment 0 without room for total", "0201 3206A0 000000", 0, anomaly.BadLength, 2},
		{"length past end", "0201 321080 0000 2A", 0, anomaly.LengthOverrun, 2},
		{"OpenBC connect (1-byte length 8)", "FF010308010000007F00", 0, anomaly.NonStockLength, 2},
		{"OpenBC keepalive 00 02", "0201 0002", 0, anomaly.NonStockLength, 2},
		{"1-byte length not to the end", "FF010307010000007F00", 0, anomaly.LengthOverrun, 2},
		{"stock connect length short by one", "FF01030FC00000", 0, anomaly.LengthOverrun, 2},
		{"cut ACK", "0201 0102", 0, anomaly.LengthOverrun, 2},
		{"cut fragment ACK", "0201 01020001", 0, anomaly.LengthOverrun, 2},
		{"cut header", "0201 3207", 0, anomaly.LengthOverrun, 2},
		{"0x06 disconnect after a good ACK", "0202 01000000 0602", 1, anomaly.NonStockDisconnect, 6},
		{"OpenBC disconnect type 0x06", "02010602", 0, anomaly.NonStockDisconnect, 2},
		{"type 0x06 of 3 bytes", "0201060200", 0, anomaly.UnknownTransportType, 2},
		{"unknown type", "02010702", 0, anomaly.UnknownTransportType, 2},
		{"fewer messages than msg_count", "0203 01000000 01010000", 2, anomaly.MsgCountMismatch, 10},
		{"trailing bytes", "0201 01000000 FFFF", 1, anomaly.TrailingBytes, 6},
	}
	var dg Datagram
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Decode(mustHex(t, tt.hex), &dg)
			if len(dg.Messages) != tt.wantMsgs {
				t.Errorf("decoded %d messages, want %d", len(dg.Messages), tt.wantMsgs)
			}
			if tt.code == 0 {
				if len(dg.Anomalies) != 0 {
					t.Errorf("unexpected anomalies %+v", dg.Anomalies)
				}
				return
			}
			if len(dg.Anomalies) != 1 {
				t.Fatalf("anomalies %+v, want one %s", dg.Anomalies, tt.code)
			}
			a := dg.Anomalies[0]
			if a.Code != tt.code || a.Offset != tt.offset || a.Message() == "" || a.Severity() == 0 {
				t.Errorf("anomaly %+v, want code %s at %d", a, tt.code, tt.offset)
			}
		})
	}
}

// The encoder must produce what the decoder reads, and the stock bytes that
// the spec quotes.
func TestEncodeMatchesStockBytes(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"connect reply", transporttest.AppendLow(nil, TypeConnect, true, true, 0, []byte{2}), "0306C0000002"},
		{"low ACK", transporttest.AppendACK(nil, 2, true, false, 0), "01020002"},
		{"fragment ACK", transporttest.AppendACK(nil, 2, false, true, 1), "0102000101"},
		{"data seq 5", transporttest.AppendData(nil, transporttest.DataHeader{Reliable: true, Seq: 5}, []byte{0x2A, 0x20}), "32078005002A20"},
		{"unreliable", transporttest.AppendData(nil, transporttest.DataHeader{}, []byte{0x1C}), "3204001C"},
		{"peer info", transporttest.AppendLow(nil, TypePeerInfo, true, true, 1, transporttest.AppendPeerInfo(nil, 2, [4]byte{10, 10, 10, 239}, "Cady2")),
			"0016C00100020A0A0AEF43006100640079003200" + "0000"},
	}
	for _, tt := range tests {
		if got := strings.ToUpper(hex.EncodeToString(tt.got)); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	frag := transporttest.AppendData(nil, transporttest.DataHeader{Reliable: true, Seq: 2, Fragment: true, FragIdx: 0, FragTotal: 3}, make([]byte, 405))
	if got := strings.ToUpper(hex.EncodeToString(frag[:7])); got != "329CA102000003" {
		t.Errorf("fragment 0 header %s, want the trace's 329CA102000003", got)
	}
}

func TestParseControlPayloads(t *testing.T) {
	// Host -> client peer info from protocol-facts 4.2 (V).
	var dg Datagram
	Decode(mustHex(t, "0101 0016C00100020A0A0AEF43006100640079003200 0000"), &dg)
	if len(dg.Messages) != 1 {
		t.Fatalf("anomalies %+v", dg.Anomalies)
	}
	pi, err := ParsePeerInfo(dg.Messages[0].Payload)
	if err != nil || pi.PeerID != 2 || pi.Addr.String() != "10.10.10.239" || pi.Name != "Cady2" {
		t.Errorf("peer info %+v %v", pi, err)
	}
	// Stock connect request and disconnect (V).
	Decode(mustHex(t, "FF01030FC000000A0A0AEF5F0A00000000"), &dg)
	cr, err := ParseConnectRequest(dg.Messages[0].Payload)
	if err != nil || cr.Addr.String() != "10.10.10.239" || cr.Port != [2]byte{0x5F, 0x0A} || len(cr.Extra) != 4 {
		t.Errorf("connect request %+v %v", cr, err)
	}
	Decode(mustHex(t, "0203050AC00200020A0A0AEF0127000001280000"), &dg)
	dc, err := ParseDisconnect(dg.Messages[0].Payload)
	if err != nil || dc.PeerID != 2 || dc.Addr.String() != "10.10.10.239" {
		t.Errorf("disconnect %+v %v", dc, err)
	}
	if _, err := ParsePeerInfo([]byte{2, 1, 2}); err == nil {
		t.Error("short peer info accepted")
	}
	if pi, err := ParsePeerInfo(mustHex(t, "020A0A0AEF4300")); err == nil || pi.Name != "C" {
		t.Errorf("unterminated name: %+v %v", pi, err)
	}
}

func TestDecodeDoesNotAllocate(t *testing.T) {
	b := mustHex(t, "010332068005002832338006000000000542610025004D756C7469706C617965722E457069736F64652E4D697373696F6E312E4D697373696F6E31320680070001")
	var dg Datagram
	Decode(b, &dg)
	if len(dg.Anomalies) != 0 || len(dg.Messages) != 3 {
		t.Fatalf("setup: %+v", dg)
	}
	if n := testing.AllocsPerRun(100, func() { Decode(b, &dg) }); n != 0 {
		t.Errorf("Decode allocates %.1f times per datagram", n)
	}
}

func BenchmarkDecode(b *testing.B) {
	pkt := mustHex(b, "010332068005002832338006000000000542610025004D756C7469706C617965722E457069736F64652E4D697373696F6E312E4D697373696F6E31320680070001")
	var dg Datagram
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for b.Loop() {
		Decode(pkt, &dg)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"FF01030FC000000A0A0AEF5F0A00000000",
		"01020306C0000002321B80000020000800736372697074732F07004170702E70796320",
		"010301020001010102000102322180030020031000736372697074732F6D61696E6D656E7505002A2E70796320",
		"0203050AC00200020A0A0AEF0127000001280000",
		"FF010308010000007F00",
		"02010602",
		"0201329CA10200000321",
	} {
		f.Add(mustHex(f, s))
	}
	var dg Datagram
	f.Fuzz(func(t *testing.T, b []byte) {
		Decode(b, &dg)
		end := 2
		for _, m := range dg.Messages {
			if m.Offset != end || m.Len <= 0 || m.Offset+m.Len > len(b) {
				t.Fatalf("message %+v outside datagram of %d", m, len(b))
			}
			if m.PayloadOff < m.Offset || m.PayloadOff > m.Offset+m.Len {
				t.Fatalf("payload offset %d outside message %+v", m.PayloadOff, m)
			}
			end += m.Len
		}
		for _, a := range dg.Anomalies {
			if a.Offset > len(b) {
				t.Fatalf("anomaly offset %d past %d", a.Offset, len(b))
			}
		}
	})
}
