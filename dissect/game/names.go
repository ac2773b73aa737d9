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

func speciesName(v uint8) string { return lookup(speciesNames[:], uint64(v)) }
func torpedoName(v uint8) string { return lookup(torpedoNames[:], uint64(v)) }

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

func factoryName(id uint32) string {
	switch id {
	case factoryBase:
		return "base event"
	case factorySubsystem:
		return "subsystem event"
	case factorySubsysControl:
		return "subsystem control event"
	case factoryChar:
		return "char event"
	case factoryObjectPointer:
		return "object-pointer event"
	case factoryPlayerList:
		return "player-list event"
	case factoryStartFiring:
		return "start-firing event"
	case factoryExploding:
		return "object-exploding event"
	case factoryStartWarp:
		return "start-warp event"
	case factoryCollision:
		return "collision event"
	}
	return ""
}

// Event codes the wire carries (section 7.3, D).
const (
	eventPhaserLevel  = 0x008000E0
	eventTorpedoType  = 0x008000FE
	eventPlayerRemove = 0x00060005
)

func eventName(code uint32) string {
	switch code {
	case 0x008000DF:
		return "add to repair list"
	case 0x00800074:
		return "repair done"
	case 0x00800075:
		return "repair impossible"
	case 0x0080007C:
		return "weapon fired"
	case 0x00800081:
		return "phaser start"
	case 0x00800083:
		return "phaser stop"
	case 0x0080007D:
		return "tractor start"
	case 0x0080007F:
		return "tractor stop"
	case 0x00800058:
		return "target changed"
	case 0x00800076:
		return "repair priority"
	case 0x008000DC:
		return "stop at target notify"
	case 0x0080004E:
		return "object exploding"
	case eventPhaserLevel:
		return "phaser level"
	case eventTorpedoType:
		return "torpedo type"
	case 0x0080006C:
		return "subsystem status"
	case 0x008000D8:
		return "start firing notify"
	case 0x008000DA:
		return "stop firing notify"
	case 0x008000E2:
		return "start cloak notify"
	case 0x008000E4:
		return "stop cloak notify"
	case 0x008000EC:
		return "warp notify"
	case 0x008000F1:
		return "new player"
	case eventPlayerRemove:
		return "player removed"
	case 0x00800050:
		return "collision"
	}
	return ""
}

// noneIfFF labels the 0xFF "none" value of limits and teams.
func noneIfFF(v uint8) string {
	if v == 0xFF {
		return "none"
	}
	return ""
}
