package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect/dissecttest/pcapedit"
)

// A capture of a link type bcdump does not decode is an error naming it,
// not silent empty output.
func TestReadUnsupportedLinkType(t *testing.T) {
	data, err := os.ReadFile(samplePcap)
	if err != nil {
		t.Fatal(err)
	}
	wifi := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(wifi[20:], 105) // IEEE 802.11
	path := filepath.Join(tempDir(t), "wifi.pcap")
	os.WriteFile(path, wifi, 0o644)
	code, out, errs := runCLI(t, nil, "read", path)
	if code != exitTrouble || out != "" || strings.Count(errs, "\n") != 1 ||
		!strings.Contains(errs, "wifi.pcap: link type 802.11 (105) is not supported") {
		t.Errorf("exit %d out %q err %q", code, out, errs)
	}
	if !strings.HasSuffix(errs, "; all 27 frames have it\n") {
		t.Errorf("err %q does not count the frames", errs)
	}
	empty := filepath.Join(tempDir(t), "empty-wifi.pcap")
	os.WriteFile(empty, wifi[:24], 0o644)
	if code, _, errs := runCLI(t, nil, "stats", empty); code != exitTrouble || !strings.Contains(errs, "empty-wifi.pcap: link type 802.11 (105) is not supported (bcdump reads") {
		t.Errorf("no frames: exit %d err %q", code, errs)
	}
}

// decrypt -w marks its copy; read decodes it as plaintext, the same
// records as the original, for pcap and pcapng; --plain forces it.
func TestDecryptRoundTrip(t *testing.T) {
	dir := tempDir(t)
	_, want, _ := runCLI(t, nil, "read", "-F", "json", samplePcap)
	ng := filepath.Join(dir, "sample.pcapng")
	if code, _, errs := runCLI(t, nil, "read", "-w", ng, samplePcap); code != 0 {
		t.Fatalf("read -w: %d %q", code, errs)
	}
	for _, in := range []string{samplePcap, ng} {
		plain := filepath.Join(dir, "plain-"+filepath.Base(in))
		if code, _, errs := runCLI(t, nil, "decrypt", in, "-w", plain); code != 0 {
			t.Fatalf("decrypt -w: %d %q", code, errs)
		}
		code, got, errs := runCLI(t, nil, "read", "-F", "json", plain)
		if code != 0 || errs != "" {
			t.Fatalf("%s: exit %d err %q", plain, code, errs)
		}
		if strings.Contains(got, "unknown-transport-type") {
			t.Errorf("%s: the plaintext was deciphered again", plain)
		}
		// Raw holds the plaintext bytes now; everything decoded is equal.
		if stripRaw(got) != stripRaw(want) {
			t.Errorf("%s: records differ from the original's", plain)
		}
		// read -w keeps the mark on its annotated copy.
		ann := plain + ".annotated.pcapng"
		if code, _, errs := runCLI(t, nil, "read", "-w", ann, plain); code != 0 {
			t.Fatalf("read -w: %d %q", code, errs)
		}
		if _, got, _ := runCLI(t, nil, "read", "-F", "json", ann); stripRaw(got) != stripRaw(want) {
			t.Errorf("%s: the annotated copy decodes differently", ann)
		}
		// Deciphering it again is refused.
		if code, _, errs := runCLI(t, nil, "decrypt", plain, "-w", plain+".2"); code != exitTrouble || !strings.Contains(errs, "deciphered already") {
			t.Errorf("decrypt twice: exit %d err %q", code, errs)
		}
	}
	// An unmarked plaintext capture: garbage without --plain, right with it.
	data, _ := os.ReadFile(filepath.Join(dir, "plain-sample.pcap"))
	copy(data[12:16], []byte{0, 0, 0, 0})
	unmarked := filepath.Join(dir, "unmarked.pcap")
	os.WriteFile(unmarked, data, 0o644)
	if _, got, _ := runCLI(t, nil, "read", "-F", "json", unmarked); !strings.Contains(got, "unknown-transport-type") {
		t.Error("an unmarked plaintext capture decoded as plaintext without --plain")
	}
	if _, got, _ := runCLI(t, nil, "read", "--plain", "-F", "json", unmarked); stripRaw(got) != stripRaw(want) {
		t.Error("--plain: records differ from the original's")
	}
}

// stripRaw drops the keys that show the bytes as captured.
func stripRaw(jsonl string) string {
	var b strings.Builder
	for _, line := range strings.Split(jsonl, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		delete(m, "raw")
		out, _ := json.Marshal(m)
		b.Write(out)
		b.WriteByte('\n')
	}
	return b.String()
}

// movedCapture writes the sample with its game port moved to 2300.
func movedCapture(t *testing.T, src string) string {
	t.Helper()
	f := parseCapture(t, src)
	path := filepath.Join(tempDir(t), "moved-"+filepath.Base(src))
	if err := os.WriteFile(path, pcapedit.MovePort(f, 22101, 2300).Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A capture on port 2300: without -p nothing is shown, but a hint names
// the port; -p auto finds it and shows what -p 2300 shows.
func TestReadMovedPort(t *testing.T) {
	for _, src := range []string{samplePcap, testdata + "/captures/openbc-session-2.pcap"} {
		moved := movedCapture(t, src)
		code, out, errs := runCLI(t, nil, "read", moved)
		if code != 0 || out != "" || !strings.Contains(errs, "nothing on the game port 22101, but UDP port 2300 carries BC traffic: add -p 2300 (or -p auto)") {
			t.Errorf("%s without -p: exit %d out %d bytes err %q", src, code, len(out), errs)
		}
		_, want, _ := runCLI(t, nil, "read", "-F", "json", "-p", "2300", moved)
		code, got, errs := runCLI(t, nil, "read", "-F", "json", "-p", "auto", moved)
		if code != 0 || got != want || errs != "bcdump: "+moved+": -p auto: BC traffic on UDP port 2300\n" {
			t.Errorf("%s -p auto: exit %d err %q; output equals -p 2300's: %v", src, code, errs, got == want)
		}
		// The records are the original's, with the port moved.
		_, orig, _ := runCLI(t, nil, "read", "-F", "json", src)
		if strings.ReplaceAll(orig, ":22101", ":2300") != got {
			t.Errorf("%s: -p auto records differ from the original's", src)
		}
		// stdin: the hint too, and -p auto spooled for the extra pass.
		data, _ := os.ReadFile(moved)
		if _, out, errs := runCLI(t, data, "read", "-"); out != "" || errs != "bcdump: stdin: nothing on the game port 22101, but UDP port 2300 carries BC traffic: add -p 2300 (or -p auto)\n" {
			t.Errorf("%s on stdin without -p: out %d bytes, err %q", src, len(out), errs)
		}
		if _, got, _ := runCLI(t, data, "read", "-F", "json", "-p", "auto", "-"); got != want {
			t.Errorf("%s: -p auto on stdin differs", src)
		}
	}
	// A capture on the game port: -p auto adds nothing, no hint.
	_, want, _ := runCLI(t, nil, "stats", samplePcap)
	code, got, errs := runCLI(t, nil, "stats", "-p", "auto", samplePcap)
	if code != 0 || got != want || !strings.Contains(errs, "-p auto: no BC traffic on other UDP ports") {
		t.Errorf("sample -p auto: exit %d err %q, same stats %v", code, errs, got == want)
	}
	if code, _, errs := runCLI(t, nil, "read", "-p", "autox", samplePcap); code != exitTrouble || !strings.Contains(errs, "--port autox is not a UDP port") {
		t.Errorf("bad -p: exit %d err %q", code, errs)
	}
}
