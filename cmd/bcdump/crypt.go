package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect"
)

func newEncryptCmd(s *streams) *cobra.Command {
	var hexIn string
	cmd := &cobra.Command{
		Use:   "encrypt --hex HEX",
		Short: "Encipher one whole datagram given in hex (byte 0 stays clear)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cryptHex(s, hexIn, cipher.Encrypt)
		},
	}
	cmd.Flags().StringVar(&hexIn, "hex", "", "the plaintext datagram in hex (any case, spaces allowed)")
	_ = cmd.MarkFlagRequired("hex")
	return cmd
}

func newDecryptCmd(s *streams) *cobra.Command {
	var hexIn, out string
	var portsFlag []string
	cmd := &cobra.Command{
		Use:   "decrypt (--hex HEX | IN -w OUT)",
		Short: "Decipher one datagram given in hex, or a whole capture for Wireshark",
		Long: `With --hex, print the deciphered form of one whole datagram.
With IN -w OUT, write a copy of capture IN whose game datagrams carry
deciphered payloads (UDP checksums fixed), for Wireshark users.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case hexIn != "" && len(args) == 0 && out == "":
				return cryptHex(s, hexIn, cipher.Decrypt)
			case hexIn == "" && len(args) == 1 && out != "":
				o := decodeFlags{ports: portsFlag}
				ports, auto, err := o.gamePorts()
				if err != nil {
					return err
				}
				if auto {
					if args[0] == "-" {
						return errors.New("-p auto reads the capture twice; give a file, not stdin")
					}
					found, err := dissect.FindPorts(args[0], dissect.Options{Ports: ports})
					if err != nil {
						return err
					}
					ports = append(ports, found...)
				}
				return decryptCapture(s, args[0], out, ports)
			}
			return errors.New("decrypt takes either --hex HEX, or IN -w OUT")
		},
	}
	cmd.Flags().StringVar(&hexIn, "hex", "", "a datagram in hex (any case, spaces allowed)")
	cmd.Flags().StringVarP(&out, "write", "w", "", "write the deciphered capture to this file (- for stdout)")
	cmd.Flags().StringSliceVarP(&portsFlag, "port", "p", nil, `additional game port (repeatable); "auto" looks for BC traffic on other ports`)
	return cmd
}

func cryptHex(s *streams, in string, f func([]byte)) error {
	clean := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', ':':
			return -1
		}
		return r
	}, in)
	b, err := hex.DecodeString(clean)
	if err != nil {
		var bad hex.InvalidByteError
		if errors.As(err, &bad) {
			return fmt.Errorf("--hex: %q is not a hex digit", rune(bad))
		}
		return fmt.Errorf("--hex: an odd number of hex digits (%d); every byte takes two", len(clean))
	}
	f(b)
	_, err = fmt.Fprintln(s.out, hex.EncodeToString(b))
	return err
}
