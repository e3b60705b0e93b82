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
	)
}

func createTraces(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
	pcfg, ok := cfg.(*Config)
	if !ok {
		return nil, errors.New("testresultsprocessor: configuration is not a *testresultsprocessor.Config")
	}
	if err := pcfg.Validate(); err != nil {
		return nil, fmt.Errorf("testresultsprocessor: %w", err)
	}
	tel, err := newTelemetry(set.TelemetrySettings, set.ID)
	if err != nil {
		return nil, fmt.Errorf("testresultsprocessor: %w", err)
	}
	p := newProcessor(pcfg, tel, set.Logger)
	return processorhelper.NewTraces(ctx, set, cfg, next, p.processTraces,
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}),
		processorhelper.WithShutdown(tel.shutdown))
}
