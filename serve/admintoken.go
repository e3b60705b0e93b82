package serve

import (
	"fmt"
	"os"
	"strings"
)

// ReadAdminToken is the admin bearer token (Options.AdminToken): the first
// line of the file tokenFile, trimmed, and refused when empty; without a
// file, $HANGAR_ADMIN_TOKEN read through getenv, trimmed ("" when unset:
// no admin).
func ReadAdminToken(tokenFile string, getenv func(string) string) (string, error) {
	if tokenFile == "" {
		return strings.TrimSpace(getenv("HANGAR_ADMIN_TOKEN")), nil
	}
	data, err := os.ReadFile(tokenFile)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	tok := strings.TrimSpace(line)
	if tok == "" {
		return "", fmt.Errorf("%s: no token on its first line", tokenFile)
	}
	return tok, nil
}
