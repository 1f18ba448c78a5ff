package cli

import (
	"os"

	"github.com/aiperf-go/aiperf/internal/config"
)

// rampValue sets a ramp's duration; the strategy stays linear (only a
// config file chooses another).
type rampValue struct {
	recorder
	p **config.Ramp
}

func (v *rampValue) Set(s string) error {
	f, err := config.ParseFloat(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = &config.Ramp{Duration: f}
	return nil
}

func (v *rampValue) String() string {
	if *v.p == nil {
		return ""
	}
	return formatFloat((*v.p).Duration)
}
func (v *rampValue) Type() string { return "seconds" }

// rateSeriesValue reads a --request-rate-series JSON file into the
// configuration at once, so a bad file is reported with the other flag
// problems, before anything runs.
type rateSeriesValue struct {
	recorder
	s *config.LoadShape
}

func (v *rateSeriesValue) Set(path string) error {
	pts, err := readRateSeries(path)
	if err != nil {
		v.fail(err)
		return nil
	}
	v.s.RateSeries, v.s.RateSeriesFile = pts, path
	return nil
}

func (v *rateSeriesValue) String() string { return v.s.RateSeriesFile }
func (v *rateSeriesValue) Type() string   { return "file" }

// readRateSeries reads a rate series file: a JSON array of
// {time_s, qps} points or an object {"points": [...]}, unknown keys
// rejected. Point checks are config.Validate's.
func readRateSeries(path string) ([]config.RatePoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return config.ParseRateSeries(b, path)
}
