package transporttest

import (
	"net"
	"runtime"
	"strings"
	"testing"
)

// NeedUDP skips tb where no UDP socket can be opened at all: under Wine 8
// every UDP socket Go opens on Windows fails (Go's net package calls
// WSAIoctl SIO_UDP_CONNRESET on it, which Wine 8 does not implement:
// winapi error 10045, WSAEOPNOTSUPP). The probe proves it; elsewhere a
// socket that fails is the test's failure, not a skip.
func NeedUDP(tb testing.TB) {
	tb.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err == nil {
		c.Close()
		return
	}
	if runtime.GOOS == "windows" && strings.Contains(err.Error(), "wsaioctl") {
		tb.Skipf("no UDP socket can be opened here (%v): Wine 8 lacks the WSAIoctl Go's Windows UDP sockets need; these tests run on Linux", err)
	}
}
