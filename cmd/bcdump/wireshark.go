package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/report/wireshark"
)

// pluginFile is the plugin's file name in the plugin folder.
const pluginFile = "bcdump.lua"

func newWiresharkCmd(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "wireshark",
		Short: "Generate or install the Wireshark dissector plugin (protocol bc)",
		Long: `The Wireshark plugin is a Lua dissector generated from bcdump's own tables:
it deciphers each datagram on UDP 22101 (a protocol preference), shows the
transport messages and the decoded opcode fields under the field names of
"bcdump fields" with a "bc." prefix (bc.messages.opcode_name,
bc.messages.fields.name_hash, ...), reassembles fragments and flags
per-datagram anomalies as expert info. With --manifest, the plugin names
the checksum responses' name hashes as "bcdump read --manifest" does (the
manifest's files and directories, the stock round directories and the
Scripts/Multiplayer files), as <field>_name.`,
		Args: cobra.NoArgs,
	}
	var manifest string
	generate := func(b *bytes.Buffer) error {
		var names *checksum.Resolver
		if manifest != "" {
			m, err := s.loadManifest(manifest)
			if err != nil {
				return fmt.Errorf("--manifest: %w", err)
			}
			names = m.Resolver()
		}
		return wireshark.Generate(b, names)
	}
	cmd.PersistentFlags().StringVar(&manifest, "manifest", "", "manifest JSON (like vanilla-1.1.json) whose file and directory names the plugin shows beside their hashes")
	var out string
	lua := &cobra.Command{
		Use:   "lua",
		Short: "Print the Lua dissector plugin (or write it to -o FILE)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var b bytes.Buffer
			if err := generate(&b); err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err := s.out.Write(b.Bytes())
				return err
			}
			if err := outfile.WriteFile(out, b.Bytes(), s.outputRules()); err != nil {
				return err
			}
			fmt.Fprintf(s.err, "bcdump: wrote %s (%d bytes)\n", quote.Name(out), b.Len())
			return nil
		},
	}
	lua.Flags().StringVarP(&out, "output", "o", "", "write the plugin to FILE instead of stdout")
	var dir string
	install := &cobra.Command{
		Use:   "install",
		Short: "Write the plugin into the personal Wireshark Lua plugin folder",
		Long: `Writes bcdump.lua into Wireshark's personal Lua plugin folder:
$XDG_CONFIG_HOME/wireshark/plugins (default ~/.config/wireshark/plugins) on
Linux and macOS, %APPDATA%\Wireshark\plugins on Windows; --dir overrides it.
A relative XDG_CONFIG_HOME is ignored (the XDG spec), a relative HOME
refused. A FIFO, device or socket found at the plugin's path is refused
without being opened; a symbolic link there is replaced.
Wireshark loads it at start; in a running Wireshark, Analyze > Reload Lua
Plugins (Ctrl+Shift+L) picks up a new version.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				d, err := pluginDir()
				if err != nil {
					return err
				}
				dir = d
			}
			var b bytes.Buffer
			if err := generate(&b); err != nil {
				return err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			path := filepath.Join(dir, pluginFile)
			// bcdump chose this name: a link there is replaced, not
			// written through.
			rules := s.outputRules()
			rules.ReplaceLink = true
			if err := outfile.WriteFile(path, b.Bytes(), rules); err != nil {
				return err
			}
			fmt.Fprintf(s.out, "wrote %s\nrestart Wireshark or use Analyze > Reload Lua Plugins (Ctrl+Shift+L)\n", path)
			return nil
		},
	}
	install.Flags().StringVar(&dir, "dir", "", "plugin folder (default: Wireshark's personal Lua plugin folder)")
	cmd.AddCommand(lua, install)
	return cmd
}

// pluginDir is Wireshark's personal Lua plugin folder.
func pluginDir() (string, error) {
	if runtime.GOOS == "windows" {
		if d := os.Getenv("APPDATA"); d != "" {
			return filepath.Join(d, "Wireshark", "plugins"), nil
		}
		return "", fmt.Errorf("APPDATA is not set; give --dir")
	}
	// The XDG Base Directory spec: a relative XDG_CONFIG_HOME is invalid
	// and ignored. A relative HOME would put the plugin under whatever
	// folder bcdump runs in: refused.
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "wireshark", "plugins"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder (%v); give --dir", err)
	}
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("HOME is %s, not an absolute path; give --dir", quote.Name(home))
	}
	return filepath.Join(home, ".config", "wireshark", "plugins"), nil
}
