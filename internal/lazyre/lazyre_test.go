package lazyre

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegexpCompilesOnFirstUseOnce(t *testing.T) {
	r := New(`^a+b$`)
	assert.False(t, r.Compiled(), "New compiles nothing")
	assert.Equal(t, `^a+b$`, r.String())
	assert.False(t, r.Compiled(), "String compiles nothing")

	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() { got[i] = r.Regexp() })
	}
	wg.Wait()
	require.True(t, r.Compiled())
	for _, re := range got {
		assert.Same(t, got[0], re, "one compiled expression for every caller")
	}
	assert.True(t, r.Regexp().MatchString("aab"))
	assert.False(t, r.Regexp().MatchString("b"))
}

func TestRegexpThatDoesNotCompilePanicsOnUse(t *testing.T) {
	r := New(`(`)
	assert.Panics(t, func() { r.Regexp() })
}
