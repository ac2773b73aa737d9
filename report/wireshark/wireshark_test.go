package wireshark

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

func generate(t *testing.T) string { return generateWith(t, nil) }

func generateWith(t *testing.T, names *checksum.Resolver) string {
	t.Helper()
	var b bytes.Buffer
	if err := Generate(&b, names); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The plugin names checksum hashes as bcdump does with a manifest: the
// built-in names and the manifest's; none without (nil).
func TestGeneratedHashNames(t *testing.T) {
	entry := func(name string) string {
		return fmt.Sprintf("[0x%X]=%s", checksum.StringHash(name), luaString(name))
	}
	m, err := checksum.LoadFile("../../testdata/vanilla-1.1.json")
	if err != nil {
		t.Fatal(err)
	}
	builtin, withManifest, none := generateWith(t, checksum.NewResolver()), generateWith(t, m.Resolver()), generate(t)
	for _, name := range []string{"Mission1.pyc", "Episode"} {
		if !strings.Contains(builtin, entry(name)) || !strings.Contains(withManifest, entry(name)) {
			t.Errorf("built-in name %s missing", name)
		}
	}
	if e := entry("App.pyc"); !strings.Contains(withManifest, e) || strings.Contains(builtin, e) {
		t.Errorf("the manifest's App.pyc: with it %v, without %v", strings.Contains(withManifest, e), strings.Contains(builtin, e))
	}
	if !strings.Contains(none, "local HASH_NAMES = {}") {
		t.Error("a nil resolver should give an empty HASH_NAMES")
	}
}

// TestGeneratedCompleteness fails when an opcode, a field, an anomaly code
// or a transport type is missing from the plugin.
func TestGeneratedCompleteness(t *testing.T) {
	lua := generate(t)
	for c := 0; c < 256; c++ {
		op := game.Lookup(uint8(c))
		if !strings.Contains(lua, "["+strconv.Itoa(c)+"] = "+luaString(op.Name)+",") {
			t.Errorf("opcode 0x%02X %s missing", c, op.Name)
		}
		if op.Decode != nil {
			if _, ok := game.Layouts()[uint8(c)]; !ok {
				t.Errorf("opcode 0x%02X %s has a decoder but no layout", c, op.Name)
			}
		}
	}
	for _, f := range query.FieldSchema().Fields() {
		if strings.Contains(f.Path, "<") {
			continue
		}
		abbr := luaString("bc." + f.Path)
		if !strings.Contains(lua, "F["+abbr+"] = ProtoField.") {
			t.Errorf("field bc.%s missing", f.Path)
		}
		if name, ok := strings.CutPrefix(f.Path, "messages.fields."); ok {
			if !strings.Contains(lua, "F["+luaString("bc.messages.reassembled.fields."+name)+"] = ProtoField.") {
				t.Errorf("field bc.messages.reassembled.fields.%s missing", name)
			}
		}
	}
	for _, a := range anomaly.All() {
		if !strings.Contains(lua, "{ "+luaString(a.Name)+", ") {
			t.Errorf("anomaly code %s missing", a.Name)
		}
	}
	for typ := 0; typ < 256; typ++ {
		if tt := transport.Type(typ); tt.Known() && !strings.Contains(lua, "["+strconv.Itoa(typ)+"] = "+luaString(tt.Name())) {
			t.Errorf("transport type 0x%02X missing", typ)
		}
	}
	// Every field a layout appends is registered.
	var walk func([]game.Step)
	walk = func(steps []game.Step) {
		for _, s := range steps {
			if s.Name != "" && s.Op != game.OpFail && s.Op != game.OpIf && s.Op != game.OpSwitch && s.Op != game.OpNote {
				if !strings.Contains(lua, "F["+luaString("bc.messages.fields."+s.Name)+"]") {
					t.Errorf("layout field %s is not registered", s.Name)
				}
				// A labelled read has its "<name>_name" field too.
				if (s.Names != "" || s.Op == game.OpObjID) && !strings.Contains(lua, "F["+luaString("bc.messages.fields."+s.Name+"_name")+"]") {
					t.Errorf("label field %s_name is not registered", s.Name)
				}
			}
			if s.Names != "" && !strings.Contains(lua, "["+luaString(s.Names)+"] = {") {
				t.Errorf("name table %s missing", s.Names)
			}
			walk(s.Body)
			walk(s.Else)
			for _, c := range s.Cases {
				walk(c.Body)
			}
		}
	}
	for _, l := range game.Layouts() {
		walk(l)
	}
}

func TestGeneratedStable(t *testing.T) {
	a, b := generate(t), generate(t)
	if a != b {
		t.Error("two runs generate different plugins")
	}
}
