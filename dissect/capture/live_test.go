package capture

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestLiveErrorMessages(t *testing.T) {
	tests := []struct {
		err  *LiveError
		want string
	}{
		{&LiveError{Iface: "eth9", Err: ErrNoInterface, Known: []string{"eth0", "lo", "any"}},
			`live: no interface "eth9" (interfaces: eth0, lo, any; bcdump live --list-interfaces)`},
		{&LiveError{Iface: "eth0", Err: ErrNoPermission, Cause: errors.New("socket: operation not permitted")},
			"live: capturing on eth0 needs root or CAP_NET_RAW (socket: operation not permitted)"},
		{&LiveError{Iface: "ifb0", Err: ErrInterfaceDown}, "live: interface ifb0 is down"},
		{&LiveError{Iface: "en0", Err: ErrLiveOS}, "live: live capture needs Linux, Windows (Npcap), macOS or a BSD"},
		{&LiveError{Iface: "lo", Err: fmt.Errorf("read: %w", errors.New("boom"))}, "live: lo: read: boom"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q\nwant %q", got, tt.want)
		}
		if strings.Contains(tt.err.Error(), "\n") {
			t.Errorf("%q is not one line", tt.err.Error())
		}
		if !errors.Is(tt.err, tt.err.Err) {
			t.Errorf("%v does not wrap its reason", tt.err)
		}
	}
}

func TestPortSet(t *testing.T) {
	var s portSet
	s.set(nil)
	if !s.has(DefaultPort) || s.has(DefaultPort+1) {
		t.Error("empty set is not {DefaultPort}")
	}
	var s2 portSet
	s2.set([]uint16{0, 63, 64, 65535})
	for _, p := range []uint16{0, 63, 64, 65535} {
		if !s2.has(p) {
			t.Errorf("port %d missing", p)
		}
	}
	if s2.has(DefaultPort) || s2.has(1) {
		t.Error("unexpected port")
	}
}
