package render

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Events found mid-capture (live) come out at once: a JSON line of kind
// "event", or an `event` line in the table and hex formats.
func TestEventsMidCapture(t *testing.T) {
	ev := []dissect.Event{{
		Client: netip.MustParseAddrPort("10.0.0.2:50000"), Server: netip.MustParseAddrPort("10.0.0.1:22101"),
		Frame: 7,
		Anomaly: anomaly.Anomaly{Code: anomaly.PeerTimeout, Msg: anomaly.NoMsg,
			Text: anomaly.Literal("client went silent"), Offset: anomaly.NoOffset},
	}}
	tests := []struct {
		name string
		rep  func(*bytes.Buffer) Reporter
		want string
	}{
		{"table", func(b *bytes.Buffer) Reporter { return NewTable(b, NewPalette(false), true) },
			" event warn peer-timeout frame 7 client 10.0.0.2:50000: client went silent\n"},
		{"hex", func(b *bytes.Buffer) Reporter { return NewHex(b, NewPalette(false), false, true) },
			" event warn peer-timeout frame 7 client 10.0.0.2:50000: client went silent\n"},
		{"json", func(b *bytes.Buffer) Reporter { return NewJSON(b, true) },
			`{"kind":"event","code":"peer-timeout","severity":"warn","message":"client went silent","frame":7,"client":"10.0.0.2:50000","server":"10.0.0.1:22101"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.rep(&b).Events(ev); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want { // flushed at once
				t.Errorf("got  %q\nwant %q", b.String(), tt.want)
			}
			if tt.name == "json" {
				var v map[string]any
				if err := json.Unmarshal([]byte(strings.TrimSpace(b.String())), &v); err != nil {
					t.Errorf("not JSON: %v", err)
				}
			}
		})
	}
}
