//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package check

import "os"

// claimFolder does not claim the folder where the system has no flock:
// there, two runs given one report folder are not told apart.
func claimFolder(*os.Root, string) (*folderClaim, error) { return nil, nil }

// claimedElsewhere is false where folders are not claimed.
func claimedElsewhere(string) bool { return false }
