//go:build linux

package testresultsreceiver

import (
	"io/fs"
	"syscall"
)

// identityOf is what names the content of a listed file beside its size
// and modification time: its device and inode (a file renamed over it is
// another file) and its inode change time, which every write, truncation or
// time change moves and which no writer can set back.
func identityOf(fi fs.FileInfo) fileIdentity {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileIdentity{}
	}
	return fileIdentity{dev: st.Dev, ino: st.Ino, ctimeSec: st.Ctim.Sec, ctimeNsec: st.Ctim.Nsec}
}
