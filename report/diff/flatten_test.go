package diff

import (
	"slices"
	"testing"
	"time"
)

func TestAppendLeaves(t *testing.T) {
	cases := []struct {
		in   string
		want []Leaf
		bad  bool
	}{
		{in: `{}`, want: []Leaf{{Path: "f", Value: "{}"}}},
		{in: ` { "a" : 1 , "b":[] } `, want: []Leaf{{Path: "f.a", Value: "1"}, {Path: "f.b", Value: "[]"}}},
		{in: `{"v":[0.5,-1e3,null],"o":{"x":true}}`, want: []Leaf{
			{Path: "f.v[0]", Value: "0.5"}, {Path: "f.v[1]", Value: "-1e3"}, {Path: "f.v[2]", Value: "null"},
			{Path: "f.o.x", Value: "true"}}},
		// Escapes another writer chose compare equal to the reporter's own.
		{in: `{"t":"h\u0065llo \"q\" \u00e9\n"}`, want: []Leaf{{Path: "f.t", Value: `"hello \"q\" é\n"`}}},
		{in: `{"t":"a/b"}`, want: []Leaf{{Path: "f.t", Value: `"a/b"`}}},
		{in: `{"a\"b":1}`, want: []Leaf{{Path: `f.a"b`, Value: "1"}}},
		{in: `{"a":1`, bad: true},
		{in: `{"a" 1}`, bad: true},
		{in: `[1 2]`, bad: true},
		{in: `"open`, bad: true},
		{in: `{"a":}`, bad: true},
		{in: `1 2`, bad: true},
		{in: ``, bad: true},
	}
	for _, c := range cases {
		got, err := appendLeaves(nil, "f", []byte(c.in))
		if c.bad {
			if err == nil {
				t.Errorf("%s: no error, leaves %v", c.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	deep := ""
	for range maxDepth + 2 {
		deep += "["
	}
	if _, err := appendLeaves(nil, "f", []byte(deep)); err == nil {
		t.Error("no error for nesting past maxDepth")
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
