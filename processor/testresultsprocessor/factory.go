package testresultsprocessor

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"

	"github.com/hangar-dev/testresults/processor/testresultsprocessor/internal/metadata"
)

// Type is the component type of the processor in a collector configuration.
var Type = metadata.Type

// NewFactory returns the factory of the testresults processor.
func NewFactory() processor.Factory {
	return processor.NewFactory(
		metadata.Type,
		func() component.Config { return createDefaultConfig() },
		processor.WithTraces(createTraces, metadata.TracesStability),
		processor.WithLogs(createLogs, metadata.LogsStability),
	)
}

func createTraces(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
	p, tel, err := create(set, cfg)
	if err != nil {
		return nil, err
	}
	return processorhelper.NewTraces(ctx, set, cfg, next, p.processTraces,
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}),
		processorhelper.WithShutdown(tel.shutdown))
}

func createLogs(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Logs) (processor.Logs, error) {
	p, tel, err := create(set, cfg)
	if err != nil {
		return nil, err
	}
	return processorhelper.NewLogs(ctx, set, cfg, next, p.processLogs,
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}),
		processorhelper.WithShutdown(tel.shutdown))
}

// create validates the configuration and builds one processor instance, for
// one pipeline.
func create(set processor.Settings, cfg component.Config) (*testresultsProcessor, *telemetry, error) {
	pcfg, ok := cfg.(*Config)
	if !ok {
		return nil, nil, errors.New("testresultsprocessor: configuration is not a *testresultsprocessor.Config")
	}
	if err := pcfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("testresultsprocessor: %w", err)
	}
	tel, err := newTelemetry(set.TelemetrySettings, set.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("testresultsprocessor: %w", err)
	}
	return newProcessor(pcfg, tel, set.Logger), tel, nil
}
