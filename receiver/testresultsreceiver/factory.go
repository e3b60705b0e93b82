package testresultsreceiver

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"

	"github.com/hangar-dev/testresults/receiver/testresultsreceiver/internal/metadata"
)

// Type is the component type of the receiver in a collector configuration.
var Type = metadata.Type

// NewFactory returns the factory of the testresults receiver.
func NewFactory() receiver.Factory {
	return receiver.NewFactory(
		metadata.Type,
		func() component.Config { return createDefaultConfig() },
		receiver.WithTraces(createTraces, metadata.TracesStability),
		receiver.WithLogs(createLogs, metadata.LogsStability),
	)
}

// instances holds one receiver per configuration, so that a receiver in
// both a traces and a logs pipeline watches its folders once and hands
// each run to both. An instance leaves it when it shuts down.
var instances = struct {
	sync.Mutex
	m map[*Config]*testresultsReceiver
}{m: map[*Config]*testresultsReceiver{}}

// shared returns the receiver of cfg, made on first use.
func shared(cfg component.Config, set receiver.Settings) (*testresultsReceiver, error) {
	rcfg, ok := cfg.(*Config)
	if !ok {
		return nil, errors.New("testresultsreceiver: configuration is not a *testresultsreceiver.Config")
	}
	instances.Lock()
	defer instances.Unlock()
	if r, ok := instances.m[rcfg]; ok {
		return r, nil
	}
	r, err := newReceiver(rcfg, set)
	if err != nil {
		return nil, fmt.Errorf("testresultsreceiver: %w", err)
	}
	r.forget = func() {
		instances.Lock()
		defer instances.Unlock()
		if instances.m[rcfg] == r {
			delete(instances.m, rcfg)
		}
	}
	instances.m[rcfg] = r
	return r, nil
}

func createTraces(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Traces) (receiver.Traces, error) {
	r, err := shared(cfg, set)
	if err != nil {
		return nil, err
	}
	r.nextTraces = next
	return r, nil
}

func createLogs(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Logs) (receiver.Logs, error) {
	r, err := shared(cfg, set)
	if err != nil {
		return nil, err
	}
	r.nextLogs = next
	return r, nil
}
