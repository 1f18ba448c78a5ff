package metrics

// perSecond gives each time unit's count per second, the common base AIPerf
// converts through.
var perSecond = map[Unit]float64{
	UnitNS:  1e9,
	"us":    1e6,
	UnitMS:  1e3,
	UnitSec: 1,
}

// numBytes gives each size unit's bytes, AIPerf's MetricSizeUnit (binary
// multiples: a KB is 1,024 bytes).
var numBytes = map[Unit]float64{
	UnitBytes: 1,
	UnitKB:    1 << 10,
	"MB":      1 << 20,
	"GB":      1 << 30,
}

// scale returns the factor that converts a value in unit from to unit to, and
// whether the conversion exists. Like AIPerf it multiplies by
// per_second(to)/per_second(from), so ns -> ms is v * 1e-6 (not v / 1e6);
// the two differ in the last bit and the former reproduces AIPerf's numbers.
// Sizes convert as AIPerf's do, by num_bytes(from)/num_bytes(to).
func scale(from, to Unit) (float64, bool) {
	if from == to || to == "" {
		return 1, true
	}
	if f, ok := numBytes[from]; ok {
		t, ok := numBytes[to]
		return f / t, ok
	}
	f, ok1 := perSecond[from]
	t, ok2 := perSecond[to]
	if !ok1 || !ok2 {
		return 0, false
	}
	return t / f, true
}

// displayUnit returns the unit values are exported in.
func (m *Metric) displayUnit() Unit {
	if m.DisplayUnit == "" {
		return m.Unit
	}
	return m.DisplayUnit
}

// ToDisplay converts a value from the metric's base unit to its display unit.
func (m *Metric) ToDisplay(v float64) float64 {
	f, _ := scale(m.Unit, m.displayUnit())
	return v * f
}

// FromDisplay converts a value from the metric's display unit to its base
// unit, as goodput thresholds are (250 ms -> 250,000,000 ns).
func (m *Metric) FromDisplay(v float64) float64 {
	f, _ := scale(m.displayUnit(), m.Unit)
	return v * f
}
