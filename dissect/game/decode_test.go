package game

import (
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
)

// mustHex turns "00 0A ff" (spaces optional) into bytes.
func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// TestDecodeRealBytes decodes the captured payloads of protocol-facts
// section 7. Source column: V = quoted from a decrypted stock capture (spec),
// O = an OpenBC capture (captures/openbc-session-*.pcap), D = a spec example
// from OpenBC's docs, C = constructed around a real prefix (said why).
func TestDecodeRealBytes(t *testing.T) {
	tests := []struct {
		name, src, hex, want, summary string
	}{
		{"Settings", "V", "00 00 00 05 42 61 00 25 00 4D756C7469706C617965722E457069736F64652E4D697373696F6E312E4D697373696F6E31",
			`game_time=33.25 collision_damage=true friendly_fire=false player_slot=0 map="Multiplayer.Episode.Mission1.Mission1" checksum_correction=false`,
			`t=33.25 slot=0 map="Multiplayer.Episode.Mission1.Mission1"`},
		{"GameInit", "V", "01", ``, ``},
		{"NewPlayerInGame", "V", "2A 20", `flag=false`, ``},
		{"StopFiring", "V", "08 01 01 00 00 DA 00 80 00 00 00 00 00 05 00 00 40",
			`factory=0x00000101(subsystem event) event_code=0x008000DA(stop firing notify) source=0x00000000(none) dest=0x40000005(slot 0)`,
			`stop firing notify dst=0x40000005`},
		// C: the spec quotes the 17-byte prefix and says 8 opaque bytes follow;
		// their values were not published, so they are zero here.
		{"StartFiring", "C", "07 28 81 00 00 D8 00 80 00 00 00 00 00 05 00 00 40 00 00 00 00 00 00 00 00",
			`factory=0x00008128(start-firing event) event_code=0x008000D8(start firing notify) source=0x00000000(none) dest=0x40000005(slot 0) data=<00 00 00 00 00 00 00 00>`,
			`start firing notify dst=0x40000005`},
		{"DeletePlayerUI join", "V", "17 66 08 00 00 F1 00 80 00 00 00 00 00 91 07 00 00 02",
			`factory=0x00000866(player-list event) event_code=0x008000F1(new player) source=0x00000000(none) dest=0x00000791 value=2`,
			`new player dst=0x00000791 value=2`},
		{"DeletePlayerUI leave", "O", "17 66 08 00 00 05 00 06 00 00 00 00 00 FF FF 03 40 03",
			`factory=0x00000866(player-list event) event_code=0x00060005(player removed) source=0x00000000(none) dest=0x4003FFFF(slot 1) value=3`,
			`player removed dst=0x4003FFFF value=3`},
		{"PythonEvent exploding", "D", "06 29 81 00 00 4E 00 80 00 FF FF FF 3F FF FF FF FF 02 00 00 00 00 00 80 3F",
			`factory=0x00008129(object-exploding event) event_code=0x0080004E(object exploding) source=0x3FFFFFFF(slot 0) dest=0xFFFFFFFF(self) killer=2 lifetime=1`,
			`object exploding src=0x3FFFFFFF dst=0xFFFFFFFF killer=2`},
		{"CollisionEffect", "V", "15 24 81 00 00 50 00 80 00 00 00 00 00 FF FF FF 3F 01 0D 7E 00 D9 BB 20 A0 44",
			`factory=0x00008124(collision event) event_code=0x00800050(collision) other=0x00000000(none) ship=0x3FFFFFFF(slot 0) contact_count=1 contacts=[{direction=(0.10236,0.99213,0) distance=217}] force=1281`,
			`ship=0x3FFFFFFF other=0x00000000 contacts=1 force=1281.02`},
		{"TorpedoFire", "V", "19 0D 00 00 40 02 01 DF 87 11 FF FF 03 40 00 88 D8 5C",
			`tube=0x4000000D(slot 0) torpedo_type=2(Photon) flags=0x01 reloading=true no_target=false direction=(-0.25984,-0.95276,0.13386) target=0x4003FFFF(slot 1) target_offset={direction=(0,-0.94488,-0.31496) distance=92}`,
			`tube=0x4000000D type=Photon target=0x4003FFFF`},
		{"BeamFire", "V", "1A 77 00 00 40 02 75 0E D2 03 68 00 08 40",
			`emitter=0x40000077(slot 0) kind=0x02 direction=(0.92126,0.11024,-0.3622) flags=0x03 shield_glow=true has_target=true target=0x40080068(slot 2)`,
			`emitter=0x40000077 target=0x40080068`},
		{"BeamFire no target", "O", "1A FF FF 03 40 00 6A 2E CD 00",
			`emitter=0x4003FFFF(slot 1) kind=0x00 direction=(0.83465,0.3622,-0.40157) flags=0x00 shield_glow=false has_target=false`,
			`emitter=0x4003FFFF`},
		{"Explosion", "V", "29 FF FF FF 3F 1D 7A 0C 95 61 1B 57 E2 78",
			`object=0x3FFFFFFF(slot 0) position=(43.16,181.57,17.859) value_a=49.978 value_b=5997.8`,
			`obj=0x3FFFFFFF pos=(43.2,181.6,17.9) a=49.98 b=5997.80`},
		{"StateUpdate 0x9D", "V", "1C FF FF FF 3F 00 80 E1 41 9D 00 00 B0 42 00 00 84 C2 00 00 92 C2 21 37 FB 0B 68 46 30 BB 5E 00 00 01 CC 02 CC 04 CC",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0x9D position=(88,-66,-73) hash_present=true hash=0xFB37 forward=(0.086614,0.8189,0.55118) up=(0.37795,-0.54331,0.74016) speed=0 weapons=[{index=1 health=204} {index=2 health=204} {index=4 health=204}]`,
			`obj=0x3FFFFFFF t=28.19 flags=0x9D`},
		// OpenBC's evidence for the shared group byte (spec 7.5): 0x41 is 23
		// bytes with group byte 42 (count 2: no hash, cloak on).
		{"StateUpdate 0x41 shared group", "O", "1C FF FF 03 40 00 00 10 41 41 A4 B3 5F 42 71 16 A5 42 15 CE 3D 42 42",
			`object=0x4003FFFF(slot 1) game_time=9 flags=0x41 position=(55.925,82.544,47.451) hash_present=false cloak=true`,
			`obj=0x4003FFFF t=9.00 flags=0x41`},
		{"StateUpdate 0x4D shared group", "O", "1C FF FF FF 3F CD CC CC 3F 4D B5 CD BB 42 EA CB 9E 42 96 E1 2B 42 40 FB 67 B8 23 FE 7A",
			`object=0x3FFFFFFF(slot 0) game_time=1.6 flags=0x4D position=(93.902,79.398,42.97) hash_present=false forward=(-0.03937,0.81102,-0.56693) up=(0.27559,-0.015748,0.96063) cloak=false`,
			`obj=0x3FFFFFFF t=1.60 flags=0x4D`},
		{"StateUpdate 0x5C own cloak byte", "O", "1C FF FF FF 3F 00 00 00 00 5C 31 5A B7 02 00 7E F9 44 20",
			`object=0x3FFFFFFF(slot 0) game_time=0 flags=0x5C forward=(0.38583,0.70866,-0.5748) up=(0.015748,0,0.99213) speed=3.7978 cloak=false`,
			`obj=0x3FFFFFFF t=0.00 flags=0x5C`},
		// C: host-style 0x3D with subsystem data (no stock capture published);
		// 0x20 runs to the end, so the bytes after the start index stay raw.
		{"StateUpdate 0x3D subsystems", "C", "1C FF FF FF 3F 00 80 E1 41 3D 00 00 B0 42 00 00 84 C2 00 00 92 C2 20 0B 68 46 30 BB 5E E3 50 03 FF FF 21 C0",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0x3D position=(88,-66,-73) hash_present=false forward=(0.086614,0.8189,0.55118) up=(0.37795,-0.54331,0.74016) speed=14.989 subsystem_start=3 subsystem_data=<FF FF 21 C0>`,
			`obj=0x3FFFFFFF t=28.19 flags=0x3D`},
		{"StateUpdate 0xA0 unsplit", "C", "1C FF FF FF 3F 00 80 E1 41 A0 05 FF 80 01 CC",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0xA0 subsystem_start=5 subsystem_data=<FF 80 01 CC>(` + noteUnsplit + `)`,
			`obj=0x3FFFFFFF t=28.19 flags=0xA0`},
		// C: the receiver reads the cloak bit after the speed and before the
		// subsystem and weapon data (spec 7.5), so 0x60 and 0xC0 decode whole;
		// no capture of either was published. With 0x20 and 0x80 both set
		// the subsystem data still hides the weapon pairs.
		{"StateUpdate 0x60 cloak then subsystems", "C", "1C FF FF FF 3F 00 80 E1 41 60 21 05 FF 80 01",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0x60 cloak=true subsystem_start=5 subsystem_data=<FF 80 01>`,
			`obj=0x3FFFFFFF t=28.19 flags=0x60`},
		{"StateUpdate 0xC0 cloak then weapons", "C", "1C FF FF FF 3F 00 80 E1 41 C0 20 01 CC 02 CC",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0xC0 cloak=false weapons=[{index=1 health=204} {index=2 health=204}]`,
			`obj=0x3FFFFFFF t=28.19 flags=0xC0`},
		{"StateUpdate 0x51 cloak in the hash group", "C", "1C FF FF FF 3F 00 80 E1 41 51 00 00 B0 42 00 00 84 C2 00 00 92 C2 43 37 FB 00 00",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0x51 position=(88,-66,-73) hash_present=true hash=0xFB37 speed=0 cloak=true`,
			`obj=0x3FFFFFFF t=28.19 flags=0x51`},
		{"StateUpdate 0xE0 unsplit", "C", "1C FF FF FF 3F 00 80 E1 41 E0 21 05 FF 80 01 CC",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0xE0 cloak=true subsystem_start=5 subsystem_data=<FF 80 01 CC>(` + noteUnsplit + `)`,
			`obj=0x3FFFFFFF t=28.19 flags=0xE0`},
		// C: the NetFile messages are documented from the stock client's
		// handlers (spec 7.6) and never captured: op, u16 name length, name
		// (0x25: then the file's data to the end); 0x27 is the opcode alone.
		{"ChecksumFailA", "C", "22 0C 00 73637269707473 2F 41 70 70 2E", `file_name="scripts/App."`, `file="scripts/App."`},
		{"ChecksumFailB", "C", "23 07 00 41 70 70 2E 70 79 63", `file_name="App.pyc"`, `file="App.pyc"`},
		{"FileTransfer", "C", "25 07 00 41 70 70 2E 70 79 63 99 4E 0D 0A 01 02", `file_name="App.pyc" file_data=<99 4E 0D 0A 01 02>`, `file="App.pyc" data=[6B]`},
		{"FileTransfer empty file", "C", "25 07 00 41 70 70 2E 70 79 63", `file_name="App.pyc" file_data=<>`, `file="App.pyc" data=[0B]`},
		{"FileTransferAck", "C", "27", ``, ``},
		{"MissionInit", "V", "35 08 01 FF FF",
			`player_limit=8 system=1 time_limit=255(none) frag_limit=255(none)`,
			`players=8 system=1 time=none frags=none`},
		{"MissionInit time limit", "C", "35 08 02 0A 58 02 00 00 14",
			`player_limit=8 system=2 time_limit=10 end_time=600 frag_limit=20`,
			`players=8 system=2 time=10 frags=20`},
		{"ScoreChange", "V", "36 00 00 00 00 02 00 00 00 01 00 00 00 00",
			`killer=0 victim=2 victim_deaths=1 score_count=0 scores=[]`,
			`killer=0 victim=2 deaths=1`},
		{"Score", "O", "37 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
			`player=2 kills=0 deaths=0 score=0`, `player=2 kills=0 deaths=0 score=0`},
		{"Chat", "D", "2C 02 00 00 00 05 00 68 65 6C 6C 6F", `sender=2 text="hello"`, `peer=2 "hello"`},
		{"DeletePlayerAnim", "O", "18 07 00 50 6C 61 79 65 72 32", `name="Player2"`, `name="Player2"`},
		// C: the V prefix (24 bytes) completed to the captured 111 bytes with
		// the names the spec reports (Cady2, Multi1) and 51 bytes of state.
		{"ObjCreateTeam", "C", "03 00 02 08 80 00 00 FF FF FF 3F 01 00 00 B0 42 00 00 84 C2 00 00 92 C2" +
			"0000803F 00000000 00000000 00000000 00000000 000000 05 4361647932 06 4D756C746931" + strings.Repeat("AB", 51),
			`owner_slot=0 team=2 class_id=0x00008008(ship) object=0x3FFFFFFF(slot 0) species=1(Akira) position=(88,-66,-73) orientation=[1 0 0 0] speed=0 reserved=<00 00 00> player_name="Cady2" set_name="Multi1" subsystem_state=<` +
				strings.TrimSpace(strings.Repeat("AB ", 51)) + `>`,
			`slot=0 team=2 obj=0x3FFFFFFF species=Akira name="Cady2"`},
		{"EnterSet", "D", "1F FF FF FF 3F 06 00 00 00 4D 756C746931 00",
			`object=0x3FFFFFFF(slot 0) set_name="Multi1"`, `obj=0x3FFFFFFF set="Multi1"`},
		{"DestroyObj", "D", "14 FF FF 03 40", `object=0x4003FFFF(slot 1)`, `obj=0x4003FFFF`},
		{"SetPhaserLevel", "D", "12 05 01 00 00 E0 00 80 00 FF FF FF 3F 00 00 00 00 02",
			`factory=0x00000105(char event) event_code=0x008000E0(phaser level) source=0x3FFFFFFF(slot 0) dest=0x00000000(none) value=2(high)`,
			`phaser level src=0x3FFFFFFF value=high`},
		{"StartWarp", "D", "10 2A 81 00 00 EC 00 80 00 FF FF FF 3F 00 00 00 00 06 4D756C746932 0000C842 00000000 000020C1 00004040",
			`factory=0x0000812A(start-warp event) event_code=0x008000EC(warp notify) source=0x3FFFFFFF(slot 0) dest=0x00000000(none) set_name="Multi2" destination=(100,0,-10) warp_speed=3`,
			`warp notify src=0x3FFFFFFF set="Multi2"`},
		{"HostMsg extra", "C", "13 AA", `extra=<AA>`, `extra=[1B]`},
		{"RestartGame", "I", "39", ``, ``},
		{"EndGame", "I", "38 01 00 00 00", `reason=1(time up)`, `reason=time up`},
		{"BootPlayer", "I", "04 02", `reason=2(server full)`, `reason=server full`},
		{"UISettings", "I", "16 21", `collision_damage=true`, `collisions=on`},
		{"ScoreInit", "I", "3F 03 00 00 00 01 00 00 00 02 00 00 00 64 00 00 00 FF",
			`player=3 kills=1 deaths=2 score=100 team=255(none)`, `player=3 kills=1 deaths=2 score=100 team=none`},
		{"TeamScore", "I", "40 01 05 00 00 00 F4 01 00 00", `team=1 kills=5 score=500`, `team=1 kills=5 score=500`},
		{"TeamMessage", "I", "41 02 00 00 00 00", `player=2 team=0`, `player=2 team=0`},
	}
	var f Fields
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustHex(t, tc.hex)
			op, err := Decode(p, &f)
			if err != nil {
				t.Fatalf("%s (%s): %v", op.Name, tc.src, err)
			}
			if got := render(&f); got != tc.want {
				t.Errorf("fields\n got %s\nwant %s", got, tc.want)
			}
			checkBalanced(t, &f)
			if op.Summary == nil {
				t.Fatalf("%s has no summarizer", op.Name)
			}
			if got := string(op.Summary([]byte("x"), p, &f)); got != "x"+tc.summary {
				t.Errorf("summary %q, want %q", got, "x"+tc.summary)
			}
		})
	}
}

// TestSpecNumbers checks the decoded numbers against the values the spec
// quotes for its captured examples.
func TestSpecNumbers(t *testing.T) {
	near := func(t *testing.T, name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %v, want %v (±%v)", name, got, want, tol)
		}
	}
	get := func(t *testing.T, f *Fields, name string) *Field {
		t.Helper()
		fl, ok := f.Get(name)
		if !ok {
			t.Fatalf("no field %q", name)
		}
		return fl
	}
	var f Fields
	if _, err := Decode(mustHex(t, "29 FF FF FF 3F 1D 7A 0C 95 61 1B 57 E2 78"), &f); err != nil {
		t.Fatal(err)
	}
	pos := get(t, &f, "position").V
	near(t, "explosion x", pos[0], 43.2, 0.05)
	near(t, "explosion y", pos[1], 181.6, 0.05)
	near(t, "explosion z", pos[2], 17.9, 0.05)
	near(t, "value_a", get(t, &f, "value_a").F, 49.98, 0.005)
	near(t, "value_b", get(t, &f, "value_b").F, 5997.8, 0.05)

	if _, err := Decode(mustHex(t, "15 24 81 00 00 50 00 80 00 00 00 00 00 FF FF FF 3F 01 0D 7E 00 D9 BB 20 A0 44"), &f); err != nil {
		t.Fatal(err)
	}
	near(t, "force", get(t, &f, "force").F, 1281.02, 0.005)

	p := mustHex(t, "1C FF FF FF 3F 00 80 E1 41 9D 00 00 B0 42 00 00 84 C2 00 00 92 C2 21 37 FB 0B 68 46 30 BB 5E 00 00 01 CC 02 CC 04 CC")
	if _, err := Decode(p, &f); err != nil {
		t.Fatal(err)
	}
	if g := get(t, &f, "game_time").F; g != 28.1875 {
		t.Errorf("game_time %v, want 28.1875", g)
	}
	for i, w := range [3]float64{0.087, 0.819, 0.551} {
		near(t, "forward", get(t, &f, "forward").V[i], w, 0.0005)
	}
	for i, w := range [3]float64{0.378, -0.543, 0.740} {
		near(t, "up", get(t, &f, "up").V[i], w, 0.0005)
	}
	if h := get(t, &f, "hash"); h.U != 0xFB37 || h.Off != 23 || h.Len != 2 {
		t.Errorf("hash %+v, want 0xFB37 at 23", h)
	}
	if b := get(t, &f, "hash_present"); b.Off != 22 || b.Bit != 0 || b.U != 1 {
		t.Errorf("hash_present %+v, want bit 0 of byte 22", b)
	}
}

// TestSettingsBitOffsets: all three flags point into the one group byte at
// offset 5, bits 0, 1, 2, although the third is read after the map name.
func TestSettingsBitOffsets(t *testing.T) {
	var f Fields
	p := mustHex(t, "00 00 00 05 42 61 00 25 00 4D756C7469706C617965722E457069736F64652E4D697373696F6E312E4D697373696F6E31")
	if len(p) != 46 {
		t.Fatalf("example is %d bytes, spec says 46", len(p))
	}
	if _, err := Decode(p, &f); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"collision_damage", "friendly_fire", "checksum_correction"} {
		fl, _ := f.Get(name)
		if fl == nil || fl.Off != 5 || int(fl.Bit) != i || fl.Kind != KindBool {
			t.Errorf("%s = %+v, want bit %d of byte 5", name, fl, i)
		}
	}
	if fl, _ := f.Get("player_slot"); fl.Bit != -1 || fl.Off != 6 {
		t.Errorf("player_slot %+v, want byte 6 with Bit -1", fl)
	}
}

// TestMalformed covers payloads that do not fit: each must give a
// *MalformedError at the stated offset and keep the fields before it.
func TestMalformed(t *testing.T) {
	tests := []struct {
		name, hex string
		off       int
		reason    string // substring
		want      string // fields kept
	}{
		{"Settings map overruns", "00 00 00 05 42 61 00 25 00 4D75", 7, "map: string length 37 exceeds the 2 bytes left",
			`game_time=33.25 collision_damage=true friendly_fire=false player_slot=0`},
		{"Settings empty", "00", 1, "game_time: f32 needs 4 bytes, 0 left", ``},
		{"Settings bad group byte", "00 00 00 05 42 01 00 00 00", 5, "bit group byte 0x01 claims 0 bits", `game_time=33.25`},
		{"Settings correction bit but 2-bit group", "00 00 00 05 42 41 00 00 00", 9, "checksum_correction: bit group byte needs 1 byte, 0 left",
			`game_time=33.25 collision_damage=true friendly_fire=false player_slot=0 map=""`},
		{"GameInit extra", "01 00", 1, "1 extra byte after the layout", ``},
		{"NewPlayerInGame extra", "2A 20 00", 2, "extra", `flag=false`},
		{"StopFiring extra", "08 01 01 00 00 DA 00 80 00 00 00 00 00 05 00 00 40 FF", 17, "1 extra byte",
			`factory=0x00000101(subsystem event) event_code=0x008000DA(stop firing notify) source=0x00000000(none) dest=0x40000005(slot 0)`},
		{"TorpedoFire OpenBC codec", "19 FF FF 03 40 08 02 6A 2E CD FF FF FF 3F 00 00 00 00 00", 18, "1 extra byte",
			`tube=0x4003FFFF(slot 1) torpedo_type=8(PulseDisruptor) flags=0x02 reloading=false no_target=false direction=(0.83465,0.3622,-0.40157) target=0x3FFFFFFF(slot 0) target_offset={direction=(0,0,0) distance=0}`},
		{"TorpedoFire no target but 18 bytes", "19 0D 00 00 40 02 05 DF 87 11 FF FF 03 40 00 88 D8 5C", 10, "8 extra bytes",
			`tube=0x4000000D(slot 0) torpedo_type=2(Photon) flags=0x05 reloading=true no_target=true direction=(-0.25984,-0.95276,0.13386)`},
		{"TorpedoFire cut in target offset", "19 0D 00 00 40 02 01 DF 87 11 FF FF 03 40 00 88", 14, "target_offset.direction: cv3 needs 3 bytes, 2 left",
			`tube=0x4000000D(slot 0) torpedo_type=2(Photon) flags=0x01 reloading=true no_target=false direction=(-0.25984,-0.95276,0.13386) target=0x4003FFFF(slot 1)`},
		{"StateUpdate odd weapon byte", "1C FF FF FF 3F 00 80 E1 41 80 01 CC 02", 12, "one byte left",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0x80 weapons=[{index=1 health=204}]`},
		{"StateUpdate cut position", "1C FF FF FF 3F 00 80 E1 41 01 00 00 B0 42", 10, "position: 3 x f32 needs 12 bytes, 4 left",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0x01`},
		{"StateUpdate extra", "1C FF FF FF 3F 00 80 E1 41 10 00 00 77", 12, "1 extra byte",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0x10 speed=0`},
		{"StateUpdate 0x20 without start index", "1C FF FF FF 3F 00 80 E1 41 20", 10, "subsystem_start",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0x20`},
		{"ObjCreateTeam V prefix only", "03 00 02 08 80 00 00 FF FF FF 3F 01 00 00 B0 42 00 00 84 C2 00 00 92 C2", 24, "orientation element: f32 needs 4 bytes, 0 left",
			`owner_slot=0 team=2 class_id=0x00008008(ship) object=0x3FFFFFFF(slot 0) species=1(Akira) position=(88,-66,-73)`},
		{"ObjCreateTeam OpenBC blob", "03 00 00 FF FF FF 3F 0E E2 7A B9 42", 3, "class_id 0x3FFFFFFF is not a known object class",
			`owner_slot=0 team=0`},
		{"ObjCreate name overruns", "02 00 08 80 00 00 FF FF FF 3F 01" + strings.Repeat("00", 35) + "09 41", 46, "player_name: string length 9 exceeds the 1 bytes left",
			`owner_slot=0 class_id=0x00008008(ship) object=0x3FFFFFFF(slot 0) species=1(Akira) position=(0,0,0) orientation=[0 0 0 0] speed=0 reserved=<00 00 00>`},
		{"EnterSet missing NUL", "1F FF FF FF 3F 02 00 00 00 41 42 43", 11, "ends in 0x43, not NUL", `object=0x3FFFFFFF(slot 0)`},
		{"EnterSet negative length", "1F FF FF FF 3F FF FF FF FF 00", 5, "string length -1", `object=0x3FFFFFFF(slot 0)`},
		{"Chat text overruns", "2C 02 00 00 00 09 00 68 69", 5, "text: string length 9 exceeds the 2 bytes left", `sender=2`},
		{"CollisionEffect count too big", "15 24 81 00 00 50 00 80 00 00 00 00 00 FF FF FF 3F 03 0D 7E 00 D9 BB 20 A0 44", 26, "contacts.direction: cv3 needs 3 bytes, 0 left",
			`factory=0x00008124(collision event) event_code=0x00800050(collision) other=0x00000000(none) ship=0x3FFFFFFF(slot 0) contact_count=3 contacts=[{direction=(0.10236,0.99213,0) distance=217} {direction=(-0.54331,0.25197,-0.75591) distance=68}]`},
		{"ScoreChange list overruns", "36 00 00 00 00 02 00 00 00 01 00 00 00 02 03 00 00 00", 18, "scores.score: i32 needs 4 bytes, 0 left",
			`killer=0 victim=2 victim_deaths=1 score_count=2 scores=[{player=3}]`},
		{"MissionInit end time cut", "35 08 01 05 00 00", 4, "end_time", `player_limit=8 system=1 time_limit=5`},
		{"EndGame short", "38 01 00", 1, "reason", ``},
		{"ChecksumFailA name overruns", "22 09 00 41 70 70", 1, "file_name: string length 9 exceeds the 3 bytes left", ``},
		{"ChecksumFailB extra", "23 01 00 41 00", 4, "1 extra byte", `file_name="A"`},
		{"FileTransfer no name", "25", 1, "file_name: u16 needs 2 bytes, 0 left", ``},
		{"StateUpdate 0x60 without start index", "1C FF FF FF 3F 00 80 E1 41 60 21", 11, "subsystem_start",
			`object=0x3FFFFFFF(slot 0) game_time=28.188 flags=0x60 cloak=true`},
	}
	var f Fields
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustHex(t, tc.hex)
			_, err := Decode(p, &f)
			var me *MalformedError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want *MalformedError", err)
			}
			if me.Off != tc.off || !strings.Contains(me.Reason(), tc.reason) {
				t.Errorf("got offset %d %q, want offset %d containing %q", me.Off, me.Reason(), tc.off, tc.reason)
			}
			if got := render(&f); got != tc.want {
				t.Errorf("fields kept\n got %s\nwant %s", got, tc.want)
			}
			checkBalanced(t, &f)
		})
	}
}

// TestRegistryCoverage: every opcode section 7 documents has a decoder and a
// summarizer; the free and mod ranges have none and never fail.
func TestRegistryCoverage(t *testing.T) {
	documented := []uint8{0x00, 0x01, 0x02, 0x03, 0x04, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C,
		0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B,
		0x1C, 0x1D, 0x1E, 0x1F, 0x29, 0x2A, 0x2C, 0x2D, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3F, 0x40, 0x41}
	for _, c := range documented {
		op := Lookup(c)
		if op.Decode == nil || op.Summary == nil {
			t.Errorf("0x%02X %s: decoder %v summarizer %v", c, op.Name, op.Decode != nil, op.Summary != nil)
		}
	}
	var f Fields
	for _, c := range []uint8{0x05, 0x2B, 0x2E, 0x34, 0x3A, 0x3E, 0x42, 0xCD, 0xFF} {
		op, err := Decode([]byte{c, 1, 2, 3}, &f)
		if err != nil || op.Decode != nil || len(f.List) != 0 {
			t.Errorf("0x%02X: err %v, decoder %v, %d fields; want raw", c, err, op.Decode != nil, len(f.List))
		}
	}
}
