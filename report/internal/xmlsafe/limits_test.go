package xmlsafe

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckBytes(t *testing.T) {
	lim := Limits{MaxBytes: 10}.WithDefaults()
	tests := []struct {
		name string
		n    int64
		over bool
	}{
		{"under", 9, false},
		{"at the limit", 10, false},
		{"over", 11, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := lim.CheckBytes(tt.n)
			if !tt.over {
				require.NoError(t, err)
				return
			}
			var le *LimitError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, LimitBytes, le.Limit)
			assert.Equal(t, int64(10), le.Max)
			assert.ErrorIs(t, err, ErrLimit)
			assert.Equal(t, "report: bytes limit of 10 exceeded", err.Error())
		})
	}
}
