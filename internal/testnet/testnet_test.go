package testnet

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFreeAddrCanBeListenedOn(t *testing.T) {
	tests := []struct {
		name string
		addr func(testing.TB) string
	}{
		{"FreeAddr", FreeAddr},
		{"FreePort", func(tb testing.TB) string { return "127.0.0.1:" + strconv.Itoa(FreePort(tb)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := tt.addr(t)
			host, port, err := net.SplitHostPort(addr)
			require.NoError(t, err)
			assert.Equal(t, "127.0.0.1", host)
			assert.NotEqual(t, "0", port)
			l, err := net.Listen("tcp", addr)
			require.NoError(t, err)
			require.NoError(t, l.Close())
		})
	}
}
