package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// TestWiresharkPluginShipCreate runs the plugin on a well-formed ship
// ObjCreateTeam followed by a Chat in the same datagram
// (dissecttest.ShipCreate), a shape no bundled capture holds: its
// orientation is an array of unnamed floats. Under each Lua through the
// harness, which refuses a value on a field of type none as Wireshark
// does, and in real tshark, every value must equal bcdump's, the fields
// after the orientation and the next message included.
func TestWiresharkPluginShipCreate(t *testing.T) {
	capture := filepath.Join(tempDir(t), "ship-create.pcap")
	f, err := os.Create(capture)
	if err != nil {
		t.Fatal(err)
	}
	if err := dissecttest.ShipCreate().WritePcap(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want := bcdumpValues(t, capture)
	var keys []string
	for _, v := range want[4] {
		keys = append(keys, v.key+"="+v.val)
	}
	for _, k := range []string{"bc.messages.fields.orientation=-0.25", "bc.messages.fields.player_name=Cady2", "bc.messages.fields.text=ready"} {
		if !strings.Contains(strings.Join(keys, " "), k) {
			t.Fatalf("bcdump's frame 4 lacks %s: %q", k, keys)
		}
	}
	plugin := writePlugin(t)
	harness, err := filepath.Abs("../../testdata/wireshark/harness.lua")
	if err != nil {
		t.Fatal(err)
	}
	tsv := writeFramesTSV(t, capture)
	for _, lua := range luaInterpreters {
		t.Run(lua, func(t *testing.T) {
			path, err := exec.LookPath(lua)
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is missing; CI installs it (apt-get install -y %s)", lua, lua)
				}
				t.Skipf("%s not installed", lua)
			}
			got, _ := luaValues(t, path, harness, plugin, tsv)
			if n, agree, _ := compareCapture(t, capture, want, got); agree != n || n == 0 {
				t.Errorf("agreement on %d of %d datagrams", agree, n)
			}
		})
	}
	t.Run("tshark", func(t *testing.T) {
		got := tsharkValues(t, tsharkOrSkip(t), plugin, capture)
		if n, agree, _ := compareCapture(t, capture, want, got); agree != n || n == 0 {
			t.Errorf("agreement on %d of %d datagrams", agree, n)
		}
	})
}
