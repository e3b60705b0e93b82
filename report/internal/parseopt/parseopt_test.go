package parseopt

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want Config
	}{
		{"defaults", nil, Config{Limits: xmlsafe.Limits{}.WithDefaults(), MaxMessage: xmlsafe.DefaultMaxMessageBytes}},
		{"non-positive message keeps the default", []Option{WithMaxMessage(0), WithMaxMessage(-1)},
			Config{Limits: xmlsafe.Limits{}.WithDefaults(), MaxMessage: xmlsafe.DefaultMaxMessageBytes}},
		{"set", []Option{WithLimits(xmlsafe.Limits{MaxDepth: 3}), WithWorkDir("/w"), WithMaxMessage(10)},
			Config{Limits: xmlsafe.Limits{MaxDepth: 3}.WithDefaults(), WorkDir: "/w", MaxMessage: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := New(tt.opts)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, int64(3), New([]Option{WithLimits(xmlsafe.Limits{MaxDepth: 3})}).Limits.MaxDepth)
		})
	}
}
