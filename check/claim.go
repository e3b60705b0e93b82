package check

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"sync"
)

// errHeld is why claimFolder refuses a folder: another holds its claim.
var errHeld = errors.New("held")

// folderClaim is a run's claim on its report folder (see claimFolder): the
// folder held open and locked, given up by Close.
type folderClaim struct {
	f  *os.File
	fi fs.FileInfo
}

// heldHere are the folders this process claims: another run's walk looks
// at a claim it cannot take, but a folder this process claims (the first
// run's folder, while its rerun runs) is not another run's.
var heldHere struct {
	sync.Mutex
	claims []*folderClaim
}

// hold records c as held by this process.
func hold(c *folderClaim) {
	heldHere.Lock()
	defer heldHere.Unlock()
	heldHere.claims = append(heldHere.claims, c)
}

// Close gives the claim up.
func (c *folderClaim) Close() error {
	heldHere.Lock()
	heldHere.claims = slices.DeleteFunc(heldHere.claims, func(h *folderClaim) bool { return h == c })
	heldHere.Unlock()
	return c.f.Close()
}

// claimedHere reports whether this process claims the folder fi is of.
func claimedHere(fi fs.FileInfo) bool {
	heldHere.Lock()
	defer heldHere.Unlock()
	for _, c := range heldHere.claims {
		if os.SameFile(c.fi, fi) {
			return true
		}
	}
	return false
}
