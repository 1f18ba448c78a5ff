package gpu

import (
	"math"
	"strings"
	"testing"
)

const sec = int64(1e9)

// fill stores one NVIDIA GPU's samples at t = 0, 1, ..., len(power)-1 s
// (NaN: the scrape lacked the field).
func fill(s *Store, uuid string, idx int, power, energyMJ []float64) {
	for i := range power {
		v := map[string]float64{}
		if !math.IsNaN(power[i]) {
			v[NVIDIAPower] = power[i]
		}
		if !math.IsNaN(energyMJ[i]) {
			v[NVIDIAEnergy] = energyMJ[i]
		}
		s.Add(Sample{Meta: Meta{Index: idx, UUID: uuid, Platform: PlatformNVIDIA}, Source: "http://h:9400/metrics", At: int64(i) * sec, Values: v})
	}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestGaugeStatisticsIgnoreMissingReadings(t *testing.T) {
	s := NewStore(nil)
	nan := math.NaN()
	fill(s, "GPU-a", 0, []float64{100, 200, nan, 300, 400}, []float64{1, 1, 1, 1, 1})
	g := s.sources["http://h:9400/metrics"].order[0]
	st, ok := g.fieldStats(Field{Name: NVIDIAPower}, Bounded(1*sec, 3*sec))
	if !ok {
		t.Fatal("no statistics")
	}
	near(t, "avg", st.Avg, 250)
	near(t, "min", st.Min, 200)
	near(t, "max", st.Max, 300)
	near(t, "std (ddof 1)", st.Std, math.Sqrt(5000))
	if st.Count != 3 {
		t.Errorf("count %d, want the window's 3 samples", st.Count)
	}
	one, _ := g.fieldStats(Field{Name: NVIDIAPower}, Bounded(0, 0))
	if one.Std != 0 || one.Avg != 100 {
		t.Errorf("one sample: %+v", one)
	}
	if _, ok := g.fieldStats(Field{Name: NVIDIAPower}, Bounded(2*sec, 2*sec)); ok {
		t.Error("a window holding only a missing reading has statistics")
	}
	if _, ok := g.fieldStats(Field{Name: NVIDIAPower}, Bounded(10*sec, 20*sec)); ok {
		t.Error("an empty window has statistics")
	}
}

func TestCounterIncreaseFromTheLastReadingBeforeTheWindow(t *testing.T) {
	s := NewStore(nil)
	nan := math.NaN()
	fill(s, "GPU-a", 0, []float64{1, 1, 1, 1, 1, 1}, []float64{10, 11, nan, 13, 14, 12})
	g := s.sources["http://h:9400/metrics"].order[0]
	energy := Field{Name: NVIDIAEnergy, Counter: true}
	st, _ := g.fieldStats(energy, Bounded(3*sec, 4*sec))
	near(t, "increase from the reading at 1 s (the one at 2 s is missing)", st.Avg, 14-11)
	st, _ = g.fieldStats(energy, Window{})
	near(t, "whole series: first to last", st.Avg, 12-10)
	st, _ = g.fieldStats(energy, Bounded(1*sec, 5*sec))
	near(t, "last reading minus the reference", st.Avg, 12-10)
	st, _ = g.fieldStats(energy, Bounded(5*sec, 5*sec))
	near(t, "a drop (counter reset) clamps at 0", st.Avg, 0)
	if !st.Counter {
		t.Error("not marked a counter")
	}
}

func TestFleetPowerAndEnergy(t *testing.T) {
	s := NewStore(nil)
	fill(s, "GPU-a", 0, []float64{100, 100, 100}, []float64{1, 1.0001, 1.0002})
	fill(s, "GPU-b", 1, []float64{50, 70, 90}, []float64{2, 2.00005, 2.0001})
	s.Add(Sample{Meta: Meta{UUID: "AMD-0", Platform: PlatformAMD}, Source: "amdsmi://", At: 0, Values: map[string]float64{AMDPower: 7}})
	p, n := s.TotalPower(Bounded(0, 2*sec), PlatformNVIDIA)
	near(t, "total power", p, 100+70)
	if n != 2 {
		t.Errorf("%d GPUs with power", n)
	}
	e, n := s.EnergyOver(0, 2*sec, PlatformNVIDIA)
	near(t, "total energy (J)", e, 200+100)
	if n != 2 {
		t.Errorf("%d GPUs with energy", n)
	}
	if e, n := s.EnergyOver(0, 2*sec, PlatformAMD); e != 7*2 || n != 1 {
		t.Errorf("AMD energy %v from %d GPUs without a counter, want its 7 W held for 2 s", e, n)
	}
	if got := strings.Join(s.Platforms(), ","); got != "amd,nvidia" {
		t.Errorf("platforms %q", got)
	}
	if first, last, ok := s.Span(); !ok || first != 0 || last != 2*sec {
		t.Errorf("span %d..%d %v", first, last, ok)
	}
	r := s.Summarize(Bounded(0, 2*sec))
	if len(r.Sources) != 2 || len(r.Sources[0].GPUs) != 2 || r.Sources[0].GPUs[1].Meta.UUID != "GPU-b" {
		t.Fatalf("results %+v", r)
	}
	if fs := r.Sources[0].GPUs[0].Fields; len(fs) != 2 || fs[0].Field.Name != NVIDIAPower || fs[1].Field.Name != NVIDIAEnergy {
		t.Errorf("fields %+v, want power then energy (export order)", fs)
	}
}
