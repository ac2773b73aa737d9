package wireshark

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// pluginMemoryFlows is the size of TestWiresharkPluginMemory's capture.
const pluginMemoryFlows = 200_000

// TestWiresharkPluginMemory runs tshark with and without the plugin on a
// capture of 200,000 flows that each leave a message incomplete (all
// within the flow idle limit, so only the plugin's bounds on its flows
// keep them in check) and compares their peak RSS: the plugin may add at
// most 150 MB. Without its bounds it added about 690 MB here (3.4 KB a
// flow). It takes about a minute of CPU, so it runs in CI (CI=true) or
// with BCDUMP_PLUGIN_MEMORY=1 only, in this package's test binary (not
// cmd/bcdump's, which has the other tshark tests within its time limit).
func TestWiresharkPluginMemory(t *testing.T) {
	if os.Getenv("CI") != "true" && os.Getenv("BCDUMP_PLUGIN_MEMORY") == "" {
		t.Skip("about a minute of tshark: runs in CI (CI=true) or with BCDUMP_PLUGIN_MEMORY=1")
	}
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tshark is missing; CI installs it (apt-get install -y tshark)")
		}
		t.Skip("tshark not installed")
	}
	dir := tempDir(t)
	plugin := filepath.Join(dir, "bcdump.lua")
	pf, err := os.Create(plugin)
	if err != nil {
		t.Fatal(err)
	}
	if err := Generate(pf, nil); err != nil {
		t.Fatal(err)
	}
	if err := pf.Close(); err != nil {
		t.Fatal(err)
	}
	capPath := filepath.Join(dir, "fragment-flows.pcap")
	f, err := os.Create(capPath)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := dissecttest.ManyFragmentFlows(w, pluginMemoryFlows, 100*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// peak runs tshark and returns its peak RSS in bytes; -2 is not used:
	// the one pass tshark makes by default is where the plugin's flows live.
	peak := func(args ...string) int64 {
		cmd := exec.Command(tshark, append(args, "-n", "-r", capPath)...)
		if err := cmd.Run(); err != nil {
			t.Fatalf("tshark %v: %v", args, err)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Fatal("no rusage for tshark")
		}
		return ru.Maxrss << 10 // kilobytes on Linux
	}
	without := peak()
	with := peak("-X", "lua_script:"+plugin)
	t.Logf("tshark on %d fragment flows: peak RSS %d MB without the plugin, %d MB with it (flow bounds: %d flows, %d MiB of state)",
		pluginMemoryFlows, without>>20, with>>20, MaxFlows, MaxFlowState>>20)
	if with-without > 150<<20 {
		t.Errorf("the plugin adds %d MB of peak RSS to tshark; at most 150 MB", (with-without)>>20)
	}
}
