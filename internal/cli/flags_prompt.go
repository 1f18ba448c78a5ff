package cli

import "github.com/aiperf-go/aiperf/internal/config"

// seqDistValue sets a --seq-dist mixture, parsed when the flag is read so
// that a malformed value is reported with the other flag problems.
type seqDistValue struct {
	recorder
	p *[]config.SeqDistEntry
}

func (v *seqDistValue) Set(s string) error {
	entries, err := config.ParseSequenceDistribution(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = entries
	return nil
}

func (v *seqDistValue) String() string { return config.FormatSequenceDistribution(*v.p) }
func (v *seqDistValue) Type() string   { return "distribution" }
