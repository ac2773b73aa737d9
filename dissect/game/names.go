package game

// Enumerations of section 7, used as field Notes. Lookups return "" for
// values the spec does not name, so unknown values are shown as numbers.

// speciesNames is SpeciesToShip (section 7.2); 16-45 are non-playable
// objects the spec does not name one by one (45 is the Borg cube).
var speciesNames = [...]string{
	1: "Akira", 2: "Ambassador", 3: "Galaxy", 4: "Nebula", 5: "Sovereign",
	6: "BirdOfPrey", 7: "Vorcha", 8: "Warbird", 9: "Marauder", 10: "Galor",
	11: "Keldon", 12: "CardHybrid", 13: "KessokHeavy", 14: "KessokLight",
	15: "Shuttle", 45: "BorgCube",
}

// torpedoNames is SpeciesToTorp (section 7.4).
var torpedoNames = [...]string{
	1: "Disruptor", 2: "Photon", 3: "Quantum", 4: "Antimatter",
	5: "CardassianTorpedo", 6: "KlingonTorpedo", 7: "Positron",
	8: "PulseDisruptor", 9: "FusionBolt", 10: "CardassianDisruptor",
	11: "KessokDisruptor", 12: "PhasedPlasma", 13: "Positron2",
	14: "Photon2", 15: "RomulanCannon",
}

func lookup(tab []string, v uint64) string {
	if v < uint64(len(tab)) {
		return tab[v]
	}
	return ""
}

// bootReasons is BootPlayer's reason byte (section 7.1, I).
var bootReasons = [...]string{"generic", "version mismatch", "server full", "banned", "checksum failed"}

// endGameReasons is EndGame's reason (section 7.7, I).
var endGameReasons = [...]string{
	"game over", "time up", "frag limit", "score limit",
	"starbase dead", "Borg dead", "Enterprise dead",
}

// phaserLevels is SetPhaserLevel's value (section 7.3).
var phaserLevels = [...]string{"low", "medium", "high"}

// Object classes of ObjCreate (section 7.2).
const (
	classShip    = 0x00008008
	classTorpedo = 0x00008009
)

func className(id uint32) string {
	switch id {
	case classShip:
		return "ship"
	case classTorpedo:
		return "torpedo"
	}
	return ""
}

// Event factory (class) ids of the serialized-event opcodes (section 7.3).
const (
	factoryBase          = 0x0002
	factorySubsystem     = 0x0101
	factorySubsysControl = 0x0104
	factoryChar          = 0x0105
	factoryObjectPointer = 0x010C
	factoryPlayerList    = 0x0866
	factoryStartFiring   = 0x8128
	factoryExploding     = 0x8129
	factoryStartWarp     = 0x812A
	factoryCollision     = 0x8124 // CollisionEffect 0x15 (section 7.3)
)

// factoryNames names the event factories.
var factoryNames = map[uint32]string{
	factoryBase:          "base event",
	factorySubsystem:     "subsystem event",
	factorySubsysControl: "subsystem control event",
	factoryChar:          "char event",
	factoryObjectPointer: "object-pointer event",
	factoryPlayerList:    "player-list event",
	factoryStartFiring:   "start-firing event",
	factoryExploding:     "object-exploding event",
	factoryStartWarp:     "start-warp event",
	factoryCollision:     "collision event",
}

func factoryName(id uint32) string { return factoryNames[id] }

// Event codes the wire carries (section 7.3, D).
const (
	eventPhaserLevel  = 0x008000E0
	eventTorpedoType  = 0x008000FE
	eventPlayerRemove = 0x00060005
)

// eventNames names the event codes.
var eventNames = map[uint32]string{
	0x008000DF:        "add to repair list",
	0x00800074:        "repair done",
	0x00800075:        "repair impossible",
	0x0080007C:        "weapon fired",
	0x00800081:        "phaser start",
	0x00800083:        "phaser stop",
	0x0080007D:        "tractor start",
	0x0080007F:        "tractor stop",
	0x00800058:        "target changed",
	0x00800076:        "repair priority",
	0x008000DC:        "stop at target notify",
	0x0080004E:        "object exploding",
	eventPhaserLevel:  "phaser level",
	eventTorpedoType:  "torpedo type",
	0x0080006C:        "subsystem status",
	0x008000D8:        "start firing notify",
	0x008000DA:        "stop firing notify",
	0x008000E2:        "start cloak notify",
	0x008000E4:        "stop cloak notify",
	0x008000EC:        "warp notify",
	0x008000F1:        "new player",
	eventPlayerRemove: "player removed",
	0x00800050:        "collision",
}

func eventName(code uint32) string { return eventNames[code] }

// noneIfFF labels the 0xFF "none" value of limits and teams.
func noneIfFF(v uint8) string {
	if v == 0xFF {
		return "none"
	}
	return ""
}

// Name tables: the enumerations above as value -> name maps, by the key a
// layout Step's Names gives, for tools that interpret Layouts (the Wireshark
// plugin). TestLayoutsMatchDecoders labels fields from these tables and
// compares the labels with the decoders', so they cannot drift apart.
var nameTables = map[string]map[uint64]string{
	"species": indexed(speciesNames[:]),
	"torpedo": indexed(torpedoNames[:]),
	"boot":    indexed(bootReasons[:]),
	"endgame": indexed(endGameReasons[:]),
	"phaser":  indexed(phaserLevels[:]),
	"class":   {classShip: className(classShip), classTorpedo: className(classTorpedo)},
	"factory": widen(factoryNames),
	"event":   widen(eventNames),
	"none_ff": {0xFF: noneIfFF(0xFF)},
}

// NameTables returns the name tables Steps refer to by Names.
func NameTables() map[string]map[uint64]string { return nameTables }

func indexed(names []string) map[uint64]string {
	m := map[uint64]string{}
	for i, n := range names {
		if n != "" {
			m[uint64(i)] = n
		}
	}
	return m
}

func widen(names map[uint32]string) map[uint64]string {
	m := make(map[uint64]string, len(names))
	for k, v := range names {
		m[uint64(k)] = v
	}
	return m
}
