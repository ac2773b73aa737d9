package main

import "errors"

func decryptCapture(s *streams, in, out string, ports []uint16) error {
	return errors.New("decrypt -w: not implemented yet")
}
