package configfile

import (
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/option"
)

// convs maps the option table's decoder names to the decoders.
var convs = map[option.Conv]*conv{
	option.ConvAccuracyName:   &accuracyNameConv,
	option.ConvArtifactDir:    &artifactDirConv,
	option.ConvChoice:         &choiceConv,
	option.ConvDuration:       &durationConv,
	option.ConvEnabled:        &enabledConv,
	option.ConvExtra:          &extraConv,
	option.ConvGPUMode:        &gpuModeConv,
	option.ConvHeaders:        &headersConv,
	option.ConvMetricsURLs:    &metricsURLsConv,
	option.ConvModels:         &modelsConv,
	option.ConvOTelURL:        &otelURLConv,
	option.ConvPairs:          &pairsConv,
	option.ConvPhaseType:      &phaseTypeConv,
	option.ConvRamp:           &rampConv,
	option.ConvRangeRatio:     &rangeRatioConv,
	option.ConvRateSeries:     &rateSeriesConv,
	option.ConvRaw:            &rawConv,
	option.ConvRecords:        &recordsConv,
	option.ConvResetKVCache:   &resetKVCacheConv,
	option.ConvSeqDist:        &seqDistConv,
	option.ConvServerProfiler: &serverProfilerConv,
	option.ConvURLs:           &urlsConv,
	option.ConvWarmupType:     &warmupTypeConv,
}

// optionFields derives a row from every config-file key of the option
// table, in table order (an option's first key is its sweep path).
func optionFields() []field {
	var rows []field
	for _, o := range option.All() {
		for _, k := range o.Keys {
			bind := o.Bind
			if k.Bind != nil {
				bind = k.Bind
			}
			if bind == nil {
				panic(fmt.Sprintf("option --%s: key %s binds no field", o.Name, k.Path))
			}
			r := field{path: k.Path, flag: strings.Join(append([]string{o.Name}, k.Also...), ","), bind: func(t target) any { return bind(t.cfg) }, ignored: k.Ignored, doc: k.Doc}
			if k.Conv != "" {
				c, ok := convs[k.Conv]
				if !ok {
					panic(fmt.Sprintf("option --%s: key %s: no config-file decoder %q", o.Name, k.Path, k.Conv))
				}
				r.conv = c
			}
			rows = append(rows, r)
		}
	}
	return rows
}
