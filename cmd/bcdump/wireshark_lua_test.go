package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// luaInterpreters are the interpreters the plugin is run under without
// Wireshark: Wireshark 4.0 to 4.2 embed Lua 5.2 (bit32), later releases
// Lua 5.3 or 5.4 (native bit operators, integer subtype).
var luaInterpreters = []string{"lua5.2", "lua5.3", "lua5.4"}

// TestWiresharkPluginLua runs the generated plugin on every test capture
// under each Lua interpreter, through testdata/wireshark/harness.lua (a
// stand-in for the Wireshark API the plugin uses), and checks it agrees with
// "bcdump read -F json" as TestWiresharkConformance checks tshark, and that
// its Info column is bcdump's table line less what needs the flow (see
// infoOfTable). tshark here runs only Lua 5.2; this is what tests the
// plugin's Lua 5.3+ path.
// CI installs lua5.2, lua5.3 and lua5.4; elsewhere a missing one is skipped.
func TestWiresharkPluginLua(t *testing.T) {
	plugin := writePlugin(t)
	harness, err := filepath.Abs("../../testdata/wireshark/harness.lua")
	if err != nil {
		t.Fatal(err)
	}
	caps := wiresharkCaptures(t)
	want := map[string]map[int][]kv{}
	tsv := map[string]string{}
	lines := map[string]map[int]string{}
	for _, c := range caps {
		want[c] = bcdumpValues(t, c)
		tsv[c] = writeFramesTSV(t, c)
		lines[c] = tableBriefs(t, c)
	}
	for _, lua := range luaInterpreters {
		t.Run(lua, func(t *testing.T) {
			path, err := exec.LookPath(lua)
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is missing; CI installs it (apt-get install -y %s)", lua, lua)
				}
				t.Skipf("%s not installed", lua)
			}
			t.Parallel()
			total, agree, values, infos := 0, 0, 0, 0
			for _, c := range caps {
				got, info := luaValues(t, path, harness, plugin, tsv[c])
				shown := 0
				for _, f := range slices.Sorted(maps.Keys(want[c])) {
					w := infoOfTable(lines[c][f])
					if info[f] == w {
						infos++
					} else if shown < 5 {
						t.Errorf("%s frame %d: Info column\n got  %q\n want %q", filepath.Base(c), f, info[f], w)
						shown++
					}
				}
				n, a, v := compareCapture(t, c, want[c], got)
				total, agree, values = total+n, agree+a, values+v
			}
			t.Logf("%s: the plugin agrees with bcdump on %d of %d game datagrams, %d values compared; %d Info columns match",
				lua, agree, total, values, infos)
			if agree != total || total == 0 {
				t.Errorf("%s: agreement on %d of %d datagrams", lua, agree, total)
			}
		})
	}
}

// writeFramesTSV writes the UDP datagrams of capture that the plugin's
// port sees, one per line, in the harness's input format.
// With a manifest, the plugin names the checksum hashes as bcdump read
// --manifest does (every capture, under the newest Lua; CI has it).
func TestWiresharkPluginLuaManifest(t *testing.T) {
	lua, err := exec.LookPath("lua5.4")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("lua5.4 is missing; CI installs it")
		}
		t.Skip("lua5.4 not installed")
	}
	manifest := "../../testdata/vanilla-1.1.json"
	m, err := checksum.LoadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	plugin := writePluginWith(t, m.Resolver())
	harness, err := filepath.Abs("../../testdata/wireshark/harness.lua")
	if err != nil {
		t.Fatal(err)
	}
	total, agree, named := 0, 0, 0
	for _, c := range wiresharkCaptures(t) {
		want := bcdumpValues(t, c, "--manifest", manifest)
		got, _ := luaValues(t, lua, harness, plugin, writeFramesTSV(t, c))
		n, a, _ := compareCapture(t, c, want, got)
		total, agree = total+n, agree+a
		for _, vs := range want {
			for _, v := range vs {
				if strings.HasSuffix(v.key, "hash_name") {
					named++
				}
			}
		}
	}
	if agree != total || named == 0 {
		t.Errorf("agreement on %d of %d datagrams, %d hash names", agree, total, named)
	}
}

func writeFramesTSV(t *testing.T, path string) string {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	var p capture.Packet
	for {
		err := r.Next(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.Kind != capture.KindMatched {
			continue
		}
		fmt.Fprintf(&b, "%d\t%s\t%d\t%s\t%d\t%s\t%d.%06d\n", p.Frame, p.Src.Addr(), p.Src.Port(), p.Dst.Addr(), p.Dst.Port(),
			hex.EncodeToString(p.Payload), p.Time.Unix(), p.Time.Nanosecond()/1000)
	}
	out := filepath.Join(tempDir(t), filepath.Base(path)+".tsv")
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// luaValues runs the harness and collects the compared bc.* values by
// frame, in tree order, and the Info columns; a Lua error in the dissector
// fails the test.
func luaValues(t *testing.T, lua, harness, plugin, frames string) (map[int][]kv, map[int]string) {
	t.Helper()
	cmd := exec.Command(lua, harness, plugin, frames)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", lua, filepath.Base(frames), err, errb.String())
	}
	got := map[int][]kv{}
	info := map[int]string{}
	errs := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("harness printed %q", sc.Text())
		}
		frame, err := strconv.Atoi(parts[0])
		if err != nil {
			t.Fatalf("harness printed %q", sc.Text())
		}
		key, val := parts[1], unescapeHarness(parts[2])
		if key == "!error" {
			if errs < 5 {
				t.Errorf("%s frame %d: Lua error in the dissector: %s", filepath.Base(frames), frame, val)
			}
			errs++
			continue
		}
		if key == "!refused" {
			if errs < 5 {
				t.Errorf("%s frame %d: the plugin could not add an item: %s", filepath.Base(frames), frame, val)
			}
			errs++
			continue
		}
		if key == "!info" {
			info[frame] = val
			continue
		}
		if comparedKey(key) {
			got[frame] = append(got[frame], kv{key, val})
		}
	}
	return got, info
}

// tableBriefs is "bcdump read" by frame: the text after the addresses.
func tableBriefs(t *testing.T, capture string) map[int]string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"read", "--color", "never", capture}, nil, &out, &errb); code != exitOK {
		t.Fatalf("bcdump read %s: exit %d: %s", capture, code, errb.String())
	}
	lines := map[int]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		f := strings.Fields(l)
		if len(f) < 5 || f[3] != "->" {
			continue
		}
		frame, err := strconv.Atoi(f[0])
		if err != nil {
			continue
		}
		_, rest, _ := strings.Cut(l, " -> ")
		_, rest, _ = strings.Cut(rest, " ")
		lines[frame] = rest
	}
	return lines
}

// infoOfTable is a table line as the plugin's Info column shows it: the
// plugin sees one datagram at a time, so bcdump's flow notes in brackets
// ("[acks f4 rtt 15ms]", all but "[malformed @N]" and a non-stock shape's
// "[non-stock-...]", which the plugin shows too) and its anomaly markers
// (" !code@off"; Wireshark shows expert items instead) are left out.
func infoOfTable(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		rest := line[i:]
		switch {
		case strings.HasPrefix(rest, " [") && !strings.HasPrefix(rest, " [malformed ") && !strings.HasPrefix(rest, " [non-stock-"):
			if j := strings.IndexByte(rest, ']'); j > 0 {
				i += j + 1
				continue
			}
		case strings.HasPrefix(rest, " !"):
			j := 2
			for j < len(rest) && rest[j] != ' ' {
				j++
			}
			i += j
			continue
		}
		b.WriteByte(line[i])
		i++
	}
	return b.String()
}

// unescapeHarness undoes the harness's escaping of "\\", tab, CR and newline.
func unescapeHarness(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// TestHarnessRefuses checks the stand-in refuses what Wireshark refuses, so
// the Lua runs catch a plugin that would fail in Wireshark: a value on a
// field that holds none, a fraction or an out-of-width number for an
// integer field, a string for a number, a range past the buffer.
func TestHarnessRefuses(t *testing.T) {
	harness, err := filepath.Abs("../../testdata/wireshark/harness.lua")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, add string }{
		{"value on FT_NONE", `tree:add(ProtoField.none("x.n", "n"), tvb(0, 1), 5)`},
		{"fraction for an integer", `tree:add(ProtoField.uint32("x.u", "u"), tvb(0, 1), 1.5)`},
		{"negative for unsigned", `tree:add(ProtoField.uint8("x.u", "u"), tvb(0, 1), -1)`},
		{"too wide for uint8", `tree:add(ProtoField.uint8("x.u", "u"), tvb(0, 1), 256)`},
		{"string for a number", `tree:add(ProtoField.int32("x.i", "i"), tvb(0, 1), "seven")`},
		{"range past the buffer", `tree:add(ProtoField.uint8("x.u", "u"), tvb(1, 1))`},
		{"range past a sub-buffer", `tree:add(ProtoField.uint8("x.u", "u"), tvb(0, 1):tvb()(0, 2))`},
	}
	dir := tempDir(t)
	frames := filepath.Join(dir, "frames.tsv")
	if err := os.WriteFile(frames, []byte("1\t10.0.0.1\t1000\t10.0.0.2\t22101\t07\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, lua := range luaInterpreters {
		path, err := exec.LookPath(lua)
		if err != nil {
			continue
		}
		for i, c := range cases {
			plugin := filepath.Join(dir, fmt.Sprintf("p%d.lua", i))
			src := "local p = Proto(\"x\", \"x\")\nfunction p.dissector(tvb, pinfo, tree)\n\t" + c.add +
				"\nend\nDissectorTable.get(\"udp.port\"):add(22101, p)\n"
			if err := os.WriteFile(plugin, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(path, harness, plugin, frames).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "\t!error\t") {
				t.Errorf("%s: %s: the harness accepted it (%v): %s", lua, c.name, err, out)
			}
		}
	}
}

// hostileInfoTexts are the strings the Info tests put in every string of
// dissecttest.Hostile, by name.
func hostileInfoTexts() map[string]string {
	return map[string]string{
		"controls":  hostileText(),
		"newline":   "host\nforged 1 0.0 10.0.0.1 -> 10.0.0.2 BC 60 peer=1",
		"crlf":      "a\r\nb\u2028c\u2029d\u0085e",
		"invalid":   "\xff\xfe\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82",
		"format":    "soft\u00adhyphen zero\u200bwidth bom\ufeff tag\U000E0041 private\ue000",
		"printable": "caf\u00e9 \u65e5\u672c \U0001F600 \"q\" \\b\\",
		"long":      strings.Repeat("\u202e\xff", 150),
	}
}

// TestWiresharkPluginHostileInfo runs the plugin on captures whose every
// string (GameSpy hostname and mapname, player names in the peer info,
// ship names, chat) is hostile: newlines that would forge a line in
// tshark's one-line summary, bidi overrides and isolates, C0 and C1
// controls, bytes that are not UTF-8, format characters and runes above
// U+FFFF, printable and not. On every frame, GameSpy included, the plugin's
// Info column must be bcdump's table line (less what needs the flow) and
// printable as is (quote.Safe): one rule quotes both.
func TestWiresharkPluginHostileInfo(t *testing.T) {
	plugin := writePlugin(t)
	harness, err := filepath.Abs("../../testdata/wireshark/harness.lua")
	if err != nil {
		t.Fatal(err)
	}
	texts := hostileInfoTexts()
	for _, name := range slices.Sorted(maps.Keys(texts)) {
		t.Run(name, func(t *testing.T) {
			capPath := filepath.Join(tempDir(t), name+".pcap")
			writeMerged(t, capPath, dissecttest.Hostile(texts[name]))
			lines := tableBriefs(t, capPath)
			tsv := writeFramesTSV(t, capPath)
			ran := 0
			for _, lua := range luaInterpreters {
				path, err := exec.LookPath(lua)
				if err != nil {
					if os.Getenv("CI") != "" {
						t.Fatalf("%s is missing; CI installs it", lua)
					}
					continue
				}
				ran++
				_, info := luaValues(t, path, harness, plugin, tsv)
				if len(info) != len(lines) || len(info) == 0 {
					t.Errorf("%s: %d Info columns, %d table lines", lua, len(info), len(lines))
				}
				for _, f := range slices.Sorted(maps.Keys(lines)) {
					want := infoOfTable(lines[f])
					if info[f] != want {
						t.Errorf("%s frame %d: Info column\n got  %q\n want %q", lua, f, info[f], want)
					}
					if !quote.Safe(info[f]) {
						t.Errorf("%s frame %d: Info column %q is not printable as is", lua, f, info[f])
					}
				}
			}
			if ran == 0 {
				t.Skip("no Lua interpreter installed")
			}
		})
	}
}

// TestWiresharkPluginFlowIdle: the plugin forgets a flow idle for
// longer than bcdump's flow idle limit, as bcdump does. A message joined
// from two fragments is sent again whole 10 s later (both fragments are
// duplicates: not joined again) and once more after the flow has been
// idle for 200 s: bcdump has freed the flow and joins it anew, and so must
// the plugin (without aging it marks the fragments duplicates).
func TestWiresharkPluginFlowIdle(t *testing.T) {
	lua, err := exec.LookPath("lua5.4")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("lua5.4 is missing; CI installs it")
		}
		t.Skip("lua5.4 not installed")
	}
	harness, err := filepath.Abs("../../testdata/wireshark/harness.lua")
	if err != nil {
		t.Fatal(err)
	}
	chat := binary.LittleEndian.AppendUint32([]byte{0x2C}, 2)
	chat = binary.LittleEndian.AppendUint16(chat, 11)
	chat = append(chat, "hello there"...)
	s := dissecttest.New(netip.MustParseAddrPort("10.1.0.2:2800"), netip.MustParseAddrPort("10.1.0.1:22101"), dissecttest.SampleStart)
	send := func(dt time.Duration) {
		for i, part := range [][]byte{chat[:8], chat[8:]} {
			dg := transporttest.AppendHeader(nil, 2, 1)
			dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: 5, Fragment: true,
				FragIdx: uint8(i), FragTotal: 2}, part)
			s.Add(dt, true, dg)
			dt = 10 * time.Millisecond
		}
	}
	send(0)
	send(10 * time.Second)
	send(200 * time.Second)
	capPath := filepath.Join(tempDir(t), "idle.pcap")
	f, err := os.Create(capPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WritePcap(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want := bcdumpValues(t, capPath)
	joined := 0
	for _, vs := range want {
		for _, v := range vs {
			if v.key == "bc.messages.reassembled.fields.text" {
				joined++
			}
		}
	}
	if joined != 2 {
		t.Fatalf("bcdump joined the message %d times; the test expects 2 (first send, after the idle flow)", joined)
	}
	got, _ := luaValues(t, lua, harness, writePlugin(t), writeFramesTSV(t, capPath))
	if n, a, _ := compareCapture(t, capPath, want, got); a != n || n != 6 {
		t.Errorf("the plugin agrees with bcdump on %d of %d datagrams", a, n)
	}
}
