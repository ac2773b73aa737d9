package game

// quaternionNote labels ObjCreate's orientation.
const quaternionNote = "quaternion, w x y z as documented; order unconfirmed"
