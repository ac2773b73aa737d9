package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	path := filepath.Join(t.TempDir(), "wifi.pcap")
	os.WriteFile(path, wifi, 0o644)
	code, out, errs := runCLI(t, nil, "read", path)
	if code != exitTrouble || out != "" || strings.Count(errs, "\n") != 1 ||
		!strings.Contains(errs, "wifi.pcap: link type 802.11 (105) is not supported") {
		t.Errorf("exit %d out %q err %q", code, out, errs)
	}
	if !strings.HasSuffix(errs, "; all 27 frames have it\n") {
		t.Errorf("err %q does not count the frames", errs)
	}
	empty := filepath.Join(t.TempDir(), "empty-wifi.pcap")
	os.WriteFile(empty, wifi[:24], 0o644)
	if code, _, errs := runCLI(t, nil, "stats", empty); code != exitTrouble || !strings.Contains(errs, "empty-wifi.pcap: link type 802.11 (105) is not supported (bcdump reads") {
		t.Errorf("no frames: exit %d err %q", code, errs)
	}
}

// decrypt -w marks its copy; read decodes it as plaintext, the same
// records as the original, for pcap and pcapng; --plain forces it.
func TestDecryptRoundTrip(t *testing.T) {
	dir := t.TempDir()
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
