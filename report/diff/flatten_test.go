package diff

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The fields of a message flatten to one leaf per scalar, in wire order,
// empty objects and arrays as leaves of their own, escapes another writer
// chose equal to the reporter's own.
func TestFieldLeaves(t *testing.T) {
	cases := []struct {
		in   string
		want []Leaf
		bad  bool
	}{
		{in: `{}`, want: []Leaf{{Path: "fields", Value: "{}"}}},
		{in: ` { "a" : 1 , "b":[] } `, want: []Leaf{{Path: "fields.a", Value: "1"}, {Path: "fields.b", Value: "[]"}}},
		{in: `{"v":[0.5,-1e3,null],"o":{"x":true}}`, want: []Leaf{
			{Path: "fields.v[0]", Value: "0.5"}, {Path: "fields.v[1]", Value: "-1e3"}, {Path: "fields.v[2]", Value: "null"},
			{Path: "fields.o.x", Value: "true"}}},
		{in: `{"t":"h\u0065llo \"q\" \u00e9\n"}`, want: []Leaf{{Path: "fields.t", Value: `"hello \"q\" é\n"`}}},
		{in: `{"t":"a\/b"}`, want: []Leaf{{Path: "fields.t", Value: `"a/b"`}}},
		{in: `{"a\"b":1}`, want: []Leaf{{Path: `fields.a"b`, Value: "1"}}},
		{in: `{"a":{"b":{}},"c":[[]]}`, want: []Leaf{{Path: "fields.a.b", Value: "{}"}, {Path: "fields.c[0]", Value: "[]"}}},
		{in: `{"a":1`, bad: true},
		{in: `{"a" 1}`, bad: true},
		{in: `{"a":[1 2]}`, bad: true},
		{in: `{"a":}`, bad: true},
	}
	for _, c := range cases {
		line := `{"frame":1,"time":"2026-01-02T20:00:00.000000000Z","src":"1.2.3.4:5","dst":"1.2.3.5:22101","dir":"c2s","kind":"game","messages":[{"type":50,"fields":` + c.in + `}]}`
		conv, err := LoadJSON("t", strings.NewReader(line), nil)
		if c.bad {
			if err == nil {
				t.Errorf("%s: no error", c.in)
			}
			continue
		}
		if err != nil || len(conv.Flows) != 1 || conv.Flows[0].Len(C2S) != 1 {
			t.Fatalf("%s: %v", c.in, err)
		}
		got := conv.Flows[0].Messages(C2S)[0].Leaves()[3:] // after type, reliable, ordered
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v; want %v", c.in, got, c.want)
		}
	}
}

func TestIgnored(t *testing.T) {
	o := Options{Ignore: []string{"fields.game_time", "fields.files.content_hash", "fields.subdirs[1]", "gamespy", "seq"}}
	cases := map[string]bool{
		"fields.game_time":               true,
		"fields.game_time_name":          false,
		"fields.files[3].content_hash":   true,
		"fields.files[3].name_hash":      false,
		"fields.subdirs[1].files[0].x":   true,
		"fields.subdirs[10].files[0].x":  false,
		"gamespy.hostname":               true,
		"seq":                            true,
		"fields.seq":                     false,
		"fields.files[0].content_hashes": false,
	}
	for path, want := range cases {
		if got := o.Ignored(path); got != want {
			t.Errorf("Ignored(%q) = %v, want %v", path, got, want)
		}
	}
	o = Options{Ignore: []string{"fields.files[].content_hash"}}
	if !o.Ignored("fields.files[7].content_hash") {
		t.Error("[] in a pattern does not match every index")
	}
}

func TestParseTolerance(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{in: "50ms", want: 50 * time.Millisecond},
		{in: "1.5s", want: 1500 * time.Millisecond},
		{in: "0.05", want: 50 * time.Millisecond},
		{in: "0", want: 0},
		{in: "-1s", bad: true},
		{in: "-1", bad: true},
		{in: "soon", bad: true},
		{in: "NaN", bad: true},
	}
	for _, c := range cases {
		got, err := ParseTolerance(c.in)
		if (err != nil) != c.bad || !c.bad && got != c.want {
			t.Errorf("ParseTolerance(%q) = %v, %v", c.in, got, err)
		}
	}
}
