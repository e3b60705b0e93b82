package store

import (
	"context"
	"path/filepath"
	"testing"
)

func TestWithMaxConns(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts []Option
		want int
	}{
		{"default", nil, SQLiteMaxConns},
		{"one", []Option{WithMaxConns(1)}, 1},
		{"zero keeps the default", []Option{WithMaxConns(0)}, SQLiteMaxConns},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if got := st.(*sqlStore).db.Stats().MaxOpenConnections; got != tc.want {
				t.Errorf("MaxOpenConnections = %d, want %d", got, tc.want)
			}
		})
	}
}
