package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/report/wireshark"
)

// tsharkOrSkip returns the tshark path; without tshark the Wireshark tests
// skip, except in CI (CI=true), where they fail.
func tsharkOrSkip(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tshark is missing; CI installs it (apt-get install -y tshark)")
		}
		t.Skip("tshark not installed")
	}
	return p
}

// wiresharkCaptures are the captures the conformance test runs on.
func wiresharkCaptures(t *testing.T) []string {
	t.Helper()
	caps, err := filepath.Glob("../../testdata/captures/*.pcap*")
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		// The long session (4 300 datagrams) is most of the time of every
		// tshark and Lua test; the short captures cover the same messages
		// but for the long game's bulk.
		caps = slices.DeleteFunc(caps, func(c string) bool { return strings.HasSuffix(c, shortSkipsCapture) })
	}
	return append(caps, "../../testdata/sample.pcap")
}

// shortSkipsCapture is the capture the Wireshark tests leave out in -short
// mode.
const shortSkipsCapture = "openbc-session-3.pcap"

func writePlugin(t *testing.T) string { return writePluginWith(t, nil) }

// writePluginWith writes the plugin generated with names (see
// wireshark.Generate).
func writePluginWith(t *testing.T, names *checksum.Resolver) string {
	t.Helper()
	var b bytes.Buffer
	if err := wireshark.Generate(&b, names); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tempDir(t), "bcdump.lua")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// kv is one compared value: a bc.* path and its value as text.
type kv struct{ key, val string }

// comparedKey reports whether a bc.* key takes part in the comparison:
// the header, each message's type, seq and opcode name, every decoded
// field value and label ("<key>_name": enum name, object slot) and the
// per-datagram anomalies (code and message).
func comparedKey(k string) bool {
	switch k {
	case "bc.anomalies.code", "bc.anomalies.message":
		return true
	case "bc.peer_id", "bc.msg_count", "bc.messages.type", "bc.messages.seq",
		"bc.messages.opcode_name", "bc.messages.reassembled.opcode_name":
		return true
	}
	return strings.HasPrefix(k, "bc.messages.fields.") || strings.HasPrefix(k, "bc.messages.reassembled.fields.")
}

// bcdumpValues flattens bcdump's JSON records of game datagrams into the
// compared values by frame, in document order.
func bcdumpValues(t *testing.T, capture string, flags ...string) map[int][]kv {
	t.Helper()
	frames := map[int][]kv{}
	for _, rec := range readRecords(t, append(append([]string{"read", "-F", "json"}, flags...), capture)...) {
		if rec.Kind != "game" {
			continue
		}
		var vals []kv
		keep := false // the anomaly being walked is one the plugin reports
		walkJSON(t, rec.line, func(path []string, val string) {
			k := bcdumpKey(path)
			switch k {
			case "":
				return
			case "bc.anomalies.code":
				keep = datagramCodes[val]
			}
			if keep || !strings.HasPrefix(k, "bc.anomalies.") {
				vals = append(vals, kv{k, val})
			}
		})
		frames[rec.Frame] = vals
	}
	return frames
}

// datagramCodes are the anomalies the plugin reports: those one datagram
// shows by itself (framing, payload layout). The others need the flow.
var datagramCodes = map[string]bool{
	"short-datagram": true, "bad-length": true, "length-overrun": true, "unknown-transport-type": true,
	"msg-count-mismatch": true, "trailing-bytes": true, "payload-malformed": true,
	"non-stock-disconnect": true, "non-stock-length": true, "non-stock-torpedo-fire": true, "non-stock-obj-create": true,
}

// record is one JSON record bcdump printed.
type record struct {
	Frame int    `json:"frame"`
	Kind  string `json:"kind"`
	line  []byte
}

// readRecords runs bcdump with args and returns the records it printed.
func readRecords(t *testing.T, args ...string) []record {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, nil, &out, &errb); code != exitOK {
		t.Fatalf("bcdump %q: exit %d: %s", args, code, errb.String())
	}
	var recs []record
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		rec := record{line: append([]byte(nil), sc.Bytes()...)}
		if err := json.Unmarshal(rec.line, &rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// bcdumpKey maps a JSON path of bcdump's record to the plugin's field: a
// decoder field is found by its own name at any depth below its root, as
// the filter finds it; an unnamed array element has its array's name.
func bcdumpKey(path []string) string {
	p := strings.Join(path, ".")
	for _, root := range []string{"messages.reassembled.fields.", "messages.fields."} {
		if strings.HasPrefix(p, root) {
			return "bc." + root + path[len(path)-1]
		}
	}
	if k := "bc." + p; comparedKey(k) {
		return k
	}
	return ""
}

// walkJSON calls leaf for every scalar of the JSON document b, with the
// object keys leading to it (array levels left out).
func walkJSON(t *testing.T, b []byte, leaf func(path []string, val string)) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	type level struct {
		obj  bool
		key  string
		want bool // an object expecting a key
	}
	var stack []level
	path := func() []string {
		var p []string
		for _, l := range stack {
			if l.obj && l.key != "" {
				p = append(p, l.key)
			}
		}
		return p
	}
	afterValue := func() {
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].want = true
		}
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		top := len(stack) - 1
		if k, ok := tok.(string); ok && top >= 0 && stack[top].obj && stack[top].want {
			stack[top].key, stack[top].want = k, false
			continue
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				stack = append(stack, level{obj: true, want: true})
			case '[':
				stack = append(stack, level{})
			default:
				stack = stack[:top]
				afterValue()
			}
			continue
		}
		if tok != nil {
			leaf(path(), text(tok))
		}
		afterValue()
	}
}

func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		if v {
			return "1"
		}
		return "0"
	}
	return fmt.Sprint(v)
}

// tsharkValues runs tshark with the plugin (two passes) and collects the
// compared bc.* values by frame, in document order.
func tsharkValues(t *testing.T, tshark, plugin, capture string) map[int][]kv {
	t.Helper()
	cmd := exec.Command(tshark, "-X", "lua_script:"+plugin, "-r", capture, "-2", "-T", "json", "-Y", "bc")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark on %s: %v: %s", capture, err, errb.String())
	}
	if s := strings.TrimSpace(strings.ReplaceAll(errb.String(), `Running as user "root" and group "root". This could be dangerous.`, "")); s != "" {
		t.Fatalf("tshark on %s: %s", capture, s)
	}
	if n := bytes.Count(out, []byte("Lua Error")); n > 0 {
		t.Errorf("tshark on %s: %d Lua errors", capture, n)
	}
	frames := map[int][]kv{}
	frame := 0
	walkJSON(t, out, func(path []string, val string) {
		switch key := path[len(path)-1]; {
		case key == "bc.plugin.refused":
			t.Errorf("%s frame %d: the plugin could not add an item", filepath.Base(capture), frame)
		case key == "frame.number":
			frame, _ = strconv.Atoi(val)
		case comparedKey(key):
			frames[frame] = append(frames[frame], kv{key, val})
		}
	})
	return frames
}

// sameValue compares a bcdump value with tshark's: numbers (hex included)
// at float32 precision, everything else exactly.
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	fa, ea := number(a)
	fb, eb := number(b)
	if ea && eb {
		return float32(fa) == float32(fb) || math.IsNaN(fa) && math.IsNaN(fb)
	}
	return false
}

func number(s string) (float64, bool) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		u, err := strconv.ParseUint(s[2:], 16, 64)
		return float64(u), err == nil
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// compareFrame compares the values key by key, in order; it returns the
// number of values compared and the first difference.
func compareFrame(want, got []kv) (int, string) {
	group := func(l []kv) map[string][]string {
		m := map[string][]string{}
		for _, e := range l {
			m[e.key] = append(m[e.key], e.val)
		}
		return m
	}
	w, g := group(want), group(got)
	keys := map[string]bool{}
	for k := range w {
		keys[k] = true
	}
	for k := range g {
		keys[k] = true
	}
	n := 0
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		wv, gv := w[k], g[k]
		if len(wv) != len(gv) {
			return n, fmt.Sprintf("%s: bcdump %q, plugin %q", k, wv, gv)
		}
		for i := range wv {
			n++
			if !sameValue(wv[i], gv[i]) {
				return n, fmt.Sprintf("%s[%d]: bcdump %q, plugin %q", k, i, wv[i], gv[i])
			}
		}
	}
	return n, ""
}

// compareCapture compares the plugin's values (got) with bcdump's (want)
// frame by frame, reporting the first differences; it returns the game
// datagrams compared, those that agree and the values compared.
func compareCapture(t *testing.T, capture string, want, got map[int][]kv) (total, agree, values int) {
	t.Helper()
	shown := 0
	for _, f := range slices.Sorted(maps.Keys(want)) {
		total++
		n, diff := compareFrame(want[f], got[f])
		values += n
		if diff == "" {
			agree++
			continue
		}
		if shown < 5 {
			t.Errorf("%s frame %d: %s", filepath.Base(capture), f, diff)
		}
		shown++
	}
	for f := range got {
		if _, ok := want[f]; !ok && len(got[f]) > 0 {
			t.Errorf("%s frame %d: the plugin decodes a game datagram bcdump does not", filepath.Base(capture), f)
			break
		}
	}
	return total, agree, values
}

// TestWiresharkConformance runs the generated plugin in tshark on every
// test capture and checks it agrees with "bcdump read -F json" on every
// game datagram.
func TestWiresharkConformance(t *testing.T) {
	tshark := tsharkOrSkip(t)
	plugin := writePlugin(t)
	total, agree, values := 0, 0, 0
	for _, capture := range wiresharkCaptures(t) {
		want := bcdumpValues(t, capture)
		got := tsharkValues(t, tshark, plugin, capture)
		n, a, v := compareCapture(t, capture, want, got)
		total, agree, values = total+n, agree+a, values+v
	}
	pct := 100 * float64(agree) / float64(max(total, 1))
	t.Logf("Wireshark plugin agrees with bcdump on %d of %d game datagrams (%.2f%%), %d values compared", agree, total, pct, values)
	if agree != total || total == 0 {
		t.Errorf("agreement %.2f%% is below 100%%", pct)
	}
}

// TestWiresharkHostileInfo runs the plugin in tshark on the captures of
// TestWiresharkPluginHostileInfo: tshark's one-line summary has one line
// per frame (no string in a capture forges one), each Info column is
// printable as is and is bcdump's table line less what needs the flow.
func TestWiresharkHostileInfo(t *testing.T) {
	tshark := tsharkOrSkip(t)
	plugin := writePlugin(t)
	texts := hostileInfoTexts()
	for _, name := range slices.Sorted(maps.Keys(texts)) {
		capPath := filepath.Join(tempDir(t), name+".pcap")
		writeMerged(t, capPath, dissecttest.Hostile(texts[name]))
		lines := tableBriefs(t, capPath)
		out, err := exec.Command(tshark, "-n", "-X", "lua_script:"+plugin, "-r", capPath,
			"-T", "fields", "-e", "frame.number", "-e", "_ws.col.Info").Output()
		if err != nil {
			t.Fatalf("%s: tshark: %v", name, err)
		}
		rows := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(rows) != len(lines) {
			t.Errorf("%s: tshark printed %d lines for %d frames", name, len(rows), len(lines))
		}
		for i, row := range rows {
			num, info, _ := strings.Cut(row, "\t")
			f, err := strconv.Atoi(num)
			if err != nil || f != i+1 {
				t.Errorf("%s: line %d is %q, not frame %d", name, i+1, row, i+1)
				continue
			}
			if want := infoOfTable(lines[f]); info != want {
				t.Errorf("%s frame %d: Info column\n got  %q\n want %q", name, f, info, want)
			}
			if !quote.Safe(info) {
				t.Errorf("%s frame %d: Info column %q is not printable as is", name, f, info)
			}
		}
	}
}

// topicWiresharkFilters are the filters of bcdump help wireshark (the
// block after the "<!-- wireshark filters -->" marker).
func topicWiresharkFilters(t *testing.T) []string {
	t.Helper()
	_, rest, ok := strings.Cut(readTopic(t, "wireshark"), "<!-- wireshark filters -->")
	if !ok {
		t.Fatal("bcdump help wireshark has no <!-- wireshark filters --> block")
	}
	_, rest, _ = strings.Cut(rest, "```")
	block, _, _ := strings.Cut(rest, "```")
	re := regexp.MustCompile(`(?m)^\S.*$`)
	var out []string
	for _, l := range re.FindAllString(block, -1) {
		if strings.HasPrefix(l, "text") || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

// TestWiresharkFilters checks that the filters of bcdump help wireshark
// select the same frames in "bcdump read -Y" and in tshark with the
// plugin.
func TestWiresharkFilters(t *testing.T) {
	filters := topicWiresharkFilters(t)
	if len(filters) < 10 {
		t.Fatalf("bcdump help wireshark lists %d filters that work in both, want 10", len(filters))
	}
	tshark := tsharkOrSkip(t)
	plugin := writePlugin(t)
	for _, capture := range wiresharkCaptures(t) {
		t.Run(filepath.Base(capture), func(t *testing.T) {
			t.Parallel() // tshark runs in its own process
			got := tsharkFilters(t, tshark, plugin, capture, filters)
			for i, expr := range filters {
				t.Run(strconv.Itoa(i), func(t *testing.T) {
					checkFilter(t, capture, expr, got[i])
				})
			}
		})
	}
}

// tsharkFilters returns the frames each filter selects in tshark, from one
// pass over capture: a tap listener per filter (Listener.new with the
// filter) sees the frames the filter matches, as -Y would show them, so
// the plugin dissects the capture once, not once per filter.
func tsharkFilters(t *testing.T, tshark, plugin, capture string, filters []string) [][]string {
	t.Helper()
	var lua strings.Builder
	lua.WriteString("local filters = {\n")
	for _, f := range filters {
		if strings.Contains(f, "]==]") {
			t.Fatalf("filter %q cannot be quoted", f)
		}
		lua.WriteString("  [==[" + f + "]==],\n")
	}
	// The listeners are made in a protocol's init, once every script's
	// fields are registered (the plugin's are not while scripts load).
	lua.WriteString(`}
local p = Proto("bcdumptestfilters", "bcdump test filters")
local made = false
function p.init()
  if made then return end
  made = true
  for i, f in ipairs(filters) do
    local hits = {}
    local l = Listener.new("frame", f)
    function l.packet(pinfo) hits[#hits + 1] = tostring(pinfo.number) end
    function l.draw() print("filter " .. i .. ":" .. table.concat(hits, ",")) end
  end
end
`)
	script := filepath.Join(tempDir(t), "filters.lua")
	if err := os.WriteFile(script, []byte(lua.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// One pass: the plugin joins fragments in frame order either way.
	cmd := exec.Command(tshark, "-q", "-X", "lua_script:"+plugin, "-X", "lua_script:"+script, "-r", capture)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark with %d filters: %v\n%s", len(filters), err, stderr.String())
	}
	got := make([][]string, len(filters))
	seen := 0
	for _, l := range strings.Split(string(out), "\n") {
		var i int
		head, frames, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		if _, err := fmt.Sscanf(head, "filter %d", &i); err != nil || i < 1 || i > len(filters) {
			continue
		}
		got[i-1] = strings.FieldsFunc(frames, func(r rune) bool { return r == ',' })
		seen++
	}
	if seen != len(filters) {
		t.Fatalf("tshark reported %d of %d filters:\n%s\n%s", seen, len(filters), out, stderr.String())
	}
	return got
}

// checkFilter compares the frames "bcdump read -Y expr" selects from
// capture with tshark's.
func checkFilter(t *testing.T, capture, expr string, tshark []string) {
	var want []string
	for _, rec := range readRecords(t, "read", "-F", "json", "-Y", expr, capture) {
		if rec.Kind == "game" || rec.Kind == "gamespy" {
			want = append(want, strconv.Itoa(rec.Frame))
		}
	}
	if strings.Join(tshark, ",") != strings.Join(want, ",") {
		t.Errorf("-Y %q: bcdump frames %v, tshark frames %v", expr, clip(want), clip(tshark))
	}
}

func clip(s []string) []string {
	if len(s) > 12 {
		return append(s[:12:12], fmt.Sprintf("... (%d)", len(s)))
	}
	return s
}

// TestHelpWiresharkTree checks the tshark -V tree of bcdump help
// wireshark is the plugin's real output.
func TestHelpWiresharkTree(t *testing.T) {
	const cmdline = "$ tshark -X lua_script:bcdump.lua -r testdata/sample.pcap -V -O bc -Y frame.number==24\n"
	_, rest, ok := strings.Cut(readTopic(t, "wireshark"), cmdline)
	if !ok {
		t.Fatal("bcdump help wireshark lacks the tshark -V example")
	}
	want, _, _ := strings.Cut(rest, "```")
	tshark := tsharkOrSkip(t)
	plugin := writePlugin(t)
	got, err := exec.Command(tshark, "-X", "lua_script:"+plugin, "-r", "../../testdata/sample.pcap", "-V", "-O", "bc", "-Y", "frame.number==24").Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("the tshark -V example of bcdump help wireshark differs from the plugin's output; paste:\n%s", got)
	}
}

func TestWiresharkInstall(t *testing.T) {
	dir := filepath.Join(tempDir(t), "plugins")
	var out, errb bytes.Buffer
	if code := run([]string{"wireshark", "install", "--dir", dir}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "bcdump.lua"))
	if err != nil {
		t.Fatal(err)
	}
	var lua bytes.Buffer
	if code := run([]string{"wireshark", "lua"}, nil, &lua, &errb); code != exitOK || !bytes.Equal(b, lua.Bytes()) {
		t.Errorf("install wrote a different plugin than lua prints (exit %d)", code)
	}
	if !strings.Contains(out.String(), "Reload Lua Plugins") {
		t.Errorf("install output does not say how to reload: %q", out.String())
	}
	// lua -o says what it wrote, on stderr.
	file := filepath.Join(tempDir(t), "bcdump.lua")
	code, stdout, errs := runCLI(t, nil, "wireshark", "lua", "-o", file)
	written, _ := os.ReadFile(file)
	if code != 0 || stdout != "" || !bytes.Equal(written, lua.Bytes()) ||
		errs != fmt.Sprintf("bcdump: wrote %s (%d bytes)\n", file, lua.Len()) {
		t.Errorf("lua -o: exit %d, stdout %d bytes, stderr %q", code, len(stdout), errs)
	}
}
