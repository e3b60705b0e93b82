package testrun

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRetain(t *testing.T) {
	const us = time.Microsecond
	tests := []struct {
		kind Kind
		age  time.Duration
		want Retained
	}{
		{KindAfterTurn, 0, RetainAll},
		{KindAfterTurn, CasesRetention, RetainAll},
		{KindAfterTurn, CasesRetention + us, RetainCounts},
		{KindAfterTurn, RunRetention, RetainCounts},
		{KindAfterTurn, RunRetention + us, RetainNothing},
		{KindBase, CasesRetention + us, RetainAll},
		{KindBase, BaseCasesRetention, RetainAll},
		{KindBase, RunRetention + us, RetainNothing},
		{"", CasesRetention + us, RetainCounts},
		{KindAfterTurn, -time.Hour, RetainAll},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Retain(tt.kind, tt.age), "%q at %s", tt.kind, tt.age)
	}
	for _, k := range Kinds {
		assert.LessOrEqual(t, CasesRetentionFor(k), RunRetention, "cases never outlive their run (%s)", k)
	}
}
