package agenticcode

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Lognormal is a lognormal distribution given by its real-space mean and
// median (Mu and Sigma follow: mu = ln(median), sigma =
// sqrt(2 ln(mean/median))), or by Mu and Sigma themselves; Min and Max,
// when set, bound it by rejection sampling.
type Lognormal struct {
	Mu, Sigma    *float64
	Mean, Median float64
	Min, Max     *float64
}

// NewTokens is the new-tokens-per-turn distribution; Bias multiplies its
// mean and median (shifts mu by ln(bias)) to make up for the turns the
// context limit cuts short.
type NewTokens struct {
	Lognormal
	Bias float64
}

// Mixture is the inter-turn delay: with probability AgenticFraction a
// fast agentic delay (a tool call's follow-up), else a slow human one, in
// milliseconds; Max, when set, clips it.
type Mixture struct {
	AgenticFraction float64
	Agentic, Human  Lognormal
	Max             *float64
}

// Reset is the chance that a session ends after a turn:
// BaseProbability * (1 + (ContextScaling-1) * input/max_prompt_tokens).
type Reset struct {
	BaseProbability, ContextScaling float64
}

// Turns asks for an explicit number of turns per session (a bounded
// lognormal, rounded); AllowTruncation ends a session at the context
// limit instead of drawing it again (up to MaxSessionAttempts times).
type Turns struct {
	Mean, Median, Min, Max int
	AllowTruncation        bool
	MaxSessionAttempts     *int
}

// Groups assigns sessions to the shared L1.5 prefixes: NumGroups groups
// drawn with Zipf weights 1/k^ZipfAlpha.
type Groups struct {
	NumGroups int
	ZipfAlpha float64
}

// Cache is the layered prefix model: L1 (tools and system prompt, shared
// by every session), L1.5 (a group's repository context), L2 (a
// session's initial files, drawn per session); the history (L3) grows
// turn by turn.
type Cache struct {
	Layer1Tokens, Layer15Tokens int
	Layer2                      Lognormal
	Groups                      Groups
}

// Config is AIPerf's SessionDistributionConfig: everything the
// synthesizer draws sessions from. Defaults gives AIPerf's defaults.
type Config struct {
	NewTokensPerTurn          NewTokens
	GenerationLength          Lognormal
	InterTurnDelay            Mixture
	Reset                     *Reset
	Turns                     *Turns
	MaxPromptTokens           int
	BlockSize                 int
	Cache                     Cache
	RestartInitialProbability float64
	RestartTurnRange          [2]int
}

// Defaults returns AIPerf 0.13's default configuration (used when no
// --config is given), with Mu and Sigma derived.
func Defaults() Config {
	c := Config{
		NewTokensPerTurn: NewTokens{Lognormal: Lognormal{Mean: 3500, Median: 1800}, Bias: 1},
		GenerationLength: Lognormal{Mean: 500, Median: 300},
		InterTurnDelay: Mixture{AgenticFraction: 0.7,
			Agentic: Lognormal{Mean: 2500, Median: 1800}, Human: Lognormal{Mean: 40000, Median: 25000}},
		Reset:            &Reset{BaseProbability: 0.02, ContextScaling: 2},
		MaxPromptTokens:  200_000,
		BlockSize:        512,
		Cache:            Cache{Layer1Tokens: 32_000, Layer15Tokens: 20_000, Layer2: Lognormal{Mean: 10_000, Median: 5_000}, Groups: Groups{NumGroups: 50, ZipfAlpha: 1.2}},
		RestartTurnRange: [2]int{5, 15},
	}
	c.derive()
	return c
}

// derive fills Mu and Sigma of every distribution given by mean and
// median.
func (c *Config) derive() {
	for _, l := range []*Lognormal{&c.NewTokensPerTurn.Lognormal, &c.GenerationLength, &c.InterTurnDelay.Agentic, &c.InterTurnDelay.Human, &c.Cache.Layer2} {
		l.derive()
	}
}

func (l *Lognormal) derive() {
	if l.Mu != nil || l.Mean <= 0 || l.Median <= 0 {
		return
	}
	mu := pyLog(l.Median)
	sigma := 0.0
	if r := l.Mean / l.Median; r > 1 {
		sigma = math.Sqrt(2 * pyLog(r))
	}
	l.Mu, l.Sigma = &mu, &sigma
}

// bundled holds the configurations --config may name (AIPerf's bundled
// ones; "default" is its configs/default.json, not the defaults above).
//
//go:embed configs/*.json
var bundled embed.FS

// Bundled lists the configuration names --config accepts besides a path.
func Bundled() []string {
	entries, _ := bundled.ReadDir("configs")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(names)
	return names
}

// Load reads a configuration: a bundled name (see Bundled), else a JSON
// file holding a configuration or a manifest.json of an earlier run
// (whose generation_params it takes). It returns the configuration's
// name as the run directory's prefix (the file's stem) and the keys it
// does not interpret (AIPerf accepts and ignores them too).
func Load(nameOrPath string) (cfg Config, name string, ignored []string, err error) {
	data, err := bundled.ReadFile("configs/" + nameOrPath + ".json")
	name = nameOrPath
	if err != nil {
		if data, err = os.ReadFile(nameOrPath); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				err = fmt.Errorf("config %q not found: not a bundled config (%s) nor a file", nameOrPath, strings.Join(Bundled(), ", "))
			}
			return cfg, "", nil, err
		}
		name = strings.TrimSuffix(filepath.Base(nameOrPath), filepath.Ext(nameOrPath))
	}
	cfg, ignored, err = Parse(data)
	if err != nil {
		return cfg, "", nil, fmt.Errorf("config %s: %w", nameOrPath, err)
	}
	return cfg, name, ignored, nil
}

// Parse decodes a configuration (or a manifest, through its
// generation_params) with AIPerf's defaults for what it leaves out and
// AIPerf's validation rules, reporting every problem at once.
func Parse(data []byte) (Config, []string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return Config{}, nil, errors.New("want a JSON object")
	}
	if _, ok := top["$id"]; ok {
		if _, ok := top["properties"]; ok {
			return Config{}, nil, errors.New("this is the configuration's JSON Schema, not a configuration")
		}
	}
	if gp, ok := top["generation_params"]; ok {
		if err := json.Unmarshal(gp, &top); err != nil || top == nil {
			return Config{}, nil, errors.New("generation_params: want a JSON object")
		}
	}
	d := &decoder{}
	c := d.config(object{d: d, fields: top})
	if err := c.validate(); err != nil {
		d.errs = append(d.errs, err)
	}
	return c, d.ignored, errors.Join(d.errs...)
}

// decoder reads a JSON configuration, gathering problems and ignored
// keys with their paths.
type decoder struct {
	errs    []error
	ignored []string
}

// object is one JSON object being read.
type object struct {
	d      *decoder
	path   string
	fields map[string]json.RawMessage
	used   []string
}

func (o *object) name(key string) string {
	if o.path == "" {
		return key
	}
	return o.path + "." + key
}

// get returns key's raw value, nil when absent; a JSON null is absent
// too unless keepNull.
func (o *object) get(key string, keepNull bool) json.RawMessage {
	o.used = append(o.used, key)
	v, ok := o.fields[key]
	if !ok || (!keepNull && string(bytes.TrimSpace(v)) == "null") {
		return nil
	}
	return v
}

func (o *object) fail(key, format string, args ...any) {
	o.d.errs = append(o.d.errs, fmt.Errorf("%s: "+format, append([]any{o.name(key)}, args...)...))
}

// done records the keys nobody read.
func (o *object) done() {
	for k := range o.fields {
		if !slices.Contains(o.used, k) {
			o.d.ignored = append(o.d.ignored, o.name(k))
		}
	}
	sort.Strings(o.d.ignored)
}

func (o *object) float(key string, p *float64) {
	if v := o.get(key, false); v != nil {
		if err := json.Unmarshal(v, p); err != nil {
			o.fail(key, "want a number, got %s", v)
		}
	}
}

func (o *object) optFloat(key string, p **float64) {
	if v := o.get(key, false); v != nil {
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			o.fail(key, "want a number or null, got %s", v)
			return
		}
		*p = &f
	}
}

// int reads an integer (a number with no fraction, as pydantic accepts).
func (o *object) int(key string, p *int) {
	if v := o.get(key, false); v != nil {
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			o.fail(key, "want an integer, got %s", v)
			return
		}
		*p = int(f)
	}
}

func (o *object) bool(key string, p *bool) {
	if v := o.get(key, false); v != nil {
		if err := json.Unmarshal(v, p); err != nil {
			o.fail(key, "want true or false, got %s", v)
		}
	}
}

// sub returns the object under key; present is false when it is absent
// (isNull: given as null).
func (o *object) sub(key string) (sub object, present, isNull bool) {
	v := o.get(key, true)
	if v == nil {
		return object{}, false, false
	}
	if string(bytes.TrimSpace(v)) == "null" {
		return object{}, true, true
	}
	sub = object{d: o.d, path: o.name(key)}
	if err := json.Unmarshal(v, &sub.fields); err != nil || sub.fields == nil {
		o.fail(key, "want an object, got %s", v)
		return object{}, false, false
	}
	return sub, true, false
}

// lognormal reads a distribution that replaces def when given.
func (o *object) lognormal(key string, def Lognormal) Lognormal {
	s, ok, null := o.sub(key)
	if !ok || null {
		if null {
			o.fail(key, "want an object, got null")
		}
		return def
	}
	l := s.lognormalFields()
	s.done()
	return l
}

func (s *object) lognormalFields() Lognormal {
	var l Lognormal
	s.optFloat("mu", &l.Mu)
	s.optFloat("sigma", &l.Sigma)
	for _, k := range []string{"mean", "median"} {
		if s.get(k, false) == nil {
			s.fail(k, "required")
		}
	}
	s.float("mean", &l.Mean)
	s.float("median", &l.Median)
	s.optFloat("min", &l.Min)
	s.optFloat("max", &l.Max)
	if err := l.check(); err != nil {
		s.d.errs = append(s.d.errs, fmt.Errorf("%s: %w", s.path, err))
	}
	l.derive()
	return l
}

// check applies AIPerf's rules to a distribution.
func (l *Lognormal) check() error {
	var errs []error
	if l.Mean <= 0 || l.Median <= 0 {
		errs = append(errs, fmt.Errorf("mean (%v) and median (%v) must be > 0", l.Mean, l.Median))
	} else if l.Mean < l.Median {
		errs = append(errs, fmt.Errorf("mean (%v) must be >= median (%v) for a lognormal", l.Mean, l.Median))
	}
	for _, b := range []struct {
		name string
		v    *float64
	}{{"min", l.Min}, {"max", l.Max}} {
		if b.v != nil && !(*b.v > 0) {
			errs = append(errs, fmt.Errorf("%s must be > 0, got %v", b.name, *b.v))
		}
	}
	if l.Min != nil && l.Max != nil && *l.Min > *l.Max {
		errs = append(errs, fmt.Errorf("min (%v) must be <= max (%v)", *l.Min, *l.Max))
	}
	if (l.Mu == nil) != (l.Sigma == nil) {
		errs = append(errs, errors.New("mu and sigma must be given together"))
	}
	if l.Mu != nil && (math.IsNaN(*l.Mu) || math.IsInf(*l.Mu, 0)) {
		errs = append(errs, errors.New("mu must be finite"))
	}
	if l.Sigma != nil && (math.IsNaN(*l.Sigma) || math.IsInf(*l.Sigma, 0) || *l.Sigma < 0) {
		errs = append(errs, errors.New("sigma must be finite and >= 0"))
	}
	return errors.Join(errs...)
}

// config reads the top-level object.
func (d *decoder) config(o object) Config {
	c := Defaults()
	o.get("system_prompt_tokens", false) // removed in AIPerf; ignored
	if s, ok, null := o.sub("new_tokens_per_turn"); ok && !null {
		c.NewTokensPerTurn = newTokensConfig(&s)
	}
	c.GenerationLength = o.lognormal("generation_length", c.GenerationLength)
	if s, ok, null := o.sub("inter_turn_delay"); ok && !null {
		c.InterTurnDelay = delayConfig(&s)
	}
	s, resetGiven, resetNull := o.sub("reset")
	switch {
	case resetNull:
		c.Reset = nil
	case resetGiven:
		c.Reset = resetConfig(&s)
	}
	if s, ok, null := o.sub("turns"); ok && !null {
		c.Turns = turnsConfig(&s)
		if !resetGiven {
			c.Reset = nil // turns mode has no resets unless asked
		}
	}
	o.int("max_prompt_tokens", &c.MaxPromptTokens)
	o.int("block_size", &c.BlockSize)
	if s, ok, null := o.sub("cache"); ok && !null {
		c.Cache = cacheConfig(&s)
	}
	restartConfig(&o, &c)
	o.done()
	return c
}

// newTokensConfig reads new_tokens_per_turn: a lognormal and its bias.
func newTokensConfig(s *object) NewTokens {
	t := NewTokens{Lognormal: s.lognormalFields(), Bias: 1}
	s.float("bias", &t.Bias)
	if !(t.Bias > 0) {
		s.fail("bias", "must be > 0, got %v", t.Bias)
	}
	s.done()
	return t
}

// delayConfig reads inter_turn_delay over the defaults.
func delayConfig(s *object) Mixture {
	m := Defaults().InterTurnDelay
	s.float("agentic_fraction", &m.AgenticFraction)
	if m.AgenticFraction < 0 || m.AgenticFraction > 1 {
		s.fail("agentic_fraction", "must be in [0, 1], got %v", m.AgenticFraction)
	}
	m.Agentic = s.lognormal("agentic_delay", m.Agentic)
	m.Human = s.lognormal("human_delay", m.Human)
	s.optFloat("max", &m.Max)
	if m.Max != nil && *m.Max < 0 {
		s.fail("max", "must be >= 0, got %v", *m.Max)
	}
	s.done()
	return m
}

// resetConfig reads reset over the defaults.
func resetConfig(s *object) *Reset {
	r := *Defaults().Reset
	s.float("base_probability", &r.BaseProbability)
	s.float("context_scaling", &r.ContextScaling)
	if r.BaseProbability < 0 || r.BaseProbability > 1 {
		s.fail("base_probability", "must be in [0, 1], got %v", r.BaseProbability)
	}
	if r.ContextScaling < 1 {
		s.fail("context_scaling", "must be >= 1, got %v", r.ContextScaling)
	}
	s.done()
	return &r
}

// turnsConfig reads turns: mean, median, min and max are required.
func turnsConfig(s *object) *Turns {
	t := &Turns{}
	for _, f := range []struct {
		key string
		p   *int
	}{{"mean", &t.Mean}, {"median", &t.Median}, {"min", &t.Min}, {"max", &t.Max}} {
		if s.get(f.key, false) == nil {
			s.fail(f.key, "required")
		}
		s.int(f.key, f.p)
		if *f.p <= 0 {
			s.fail(f.key, "must be > 0, got %d", *f.p)
		}
	}
	s.bool("allow_truncation", &t.AllowTruncation)
	if s.get("max_session_attempts", false) != nil {
		n := 0
		s.int("max_session_attempts", &n)
		if n < 1 {
			s.fail("max_session_attempts", "must be >= 1, got %d", n)
		}
		t.MaxSessionAttempts = &n
	}
	s.done()
	return t
}

// cacheConfig reads cache over the defaults; layer1_5_groups given
// starts from 50 groups at Zipf 1.2.
func cacheConfig(s *object) Cache {
	def := Defaults().Cache
	s.int("layer1_tokens", &def.Layer1Tokens)
	s.int("layer1_5_tokens", &def.Layer15Tokens)
	def.Layer2 = s.lognormal("layer2", def.Layer2)
	if g, ok, null := s.sub("layer1_5_groups"); ok && !null {
		def.Groups = Groups{NumGroups: 50, ZipfAlpha: 1.2}
		g.int("num_groups", &def.Groups.NumGroups)
		g.float("zipf_alpha", &def.Groups.ZipfAlpha)
		g.done()
	}
	s.done()
	return def
}

// restartConfig reads the restart probability (restart_fraction is
// AIPerf's old name; both given must agree) and the restart turn range.
func restartConfig(o *object, c *Config) {
	restart, hasFraction := 0.0, false
	if o.get("restart_fraction", false) != nil { // AIPerf's old name
		o.float("restart_fraction", &restart)
		hasFraction = true
	}
	if o.get("restart_initial_probability", false) != nil {
		p := 0.0
		o.float("restart_initial_probability", &p)
		if hasFraction && p != restart {
			o.fail("restart_fraction", "cannot differ from restart_initial_probability")
		}
		restart = p
	}
	c.RestartInitialProbability = restart
	if v := o.get("restart_turn_range", false); v != nil {
		var r []float64
		if err := json.Unmarshal(v, &r); err != nil || len(r) != 2 || r[0] != math.Trunc(r[0]) || r[1] != math.Trunc(r[1]) {
			o.fail("restart_turn_range", "want [min, max) as two integers, got %s", v)
		} else {
			c.RestartTurnRange = [2]int{int(r[0]), int(r[1])}
		}
	}
}

// validate applies AIPerf's cross-field rules and the prefix model's
// limits.
func (c *Config) validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.MaxPromptTokens < 1 {
		add("max_prompt_tokens: must be >= 1, got %d", c.MaxPromptTokens)
	}
	if c.BlockSize < 1 {
		add("block_size: must be >= 1, got %d", c.BlockSize)
	}
	if c.Cache.Layer1Tokens < 0 || c.Cache.Layer15Tokens < 0 {
		add("cache: layer1_tokens and layer1_5_tokens must be >= 0")
	}
	if g := c.Cache.Groups; g.NumGroups < 1 || g.NumGroups > maxGroups {
		add("cache.layer1_5_groups.num_groups: must be in [1, %d], got %d", maxGroups, g.NumGroups)
	}
	if c.Cache.Groups.ZipfAlpha < 0 {
		add("cache.layer1_5_groups.zipf_alpha: must be >= 0, got %v", c.Cache.Groups.ZipfAlpha)
	}
	if c.BlockSize >= 1 {
		if n := ceilDiv(c.Cache.Layer15Tokens, c.BlockSize); n > maxGroupBlocks {
			add("cache.layer1_5_tokens: %d tokens need %d blocks, more than the %d a group has", c.Cache.Layer15Tokens, n, maxGroupBlocks)
		}
	}
	if p := c.RestartInitialProbability; p < 0 || p > 1 {
		add("restart_initial_probability: must be in [0, 1], got %v", p)
	}
	lo, hi := c.RestartTurnRange[0], c.RestartTurnRange[1]
	if lo < 1 {
		add("restart_turn_range: the minimum must be >= 1")
	}
	if hi <= lo {
		add("restart_turn_range: must be ordered as [min, max)")
	}
	if t := c.Turns; t != nil {
		switch {
		case t.Mean < t.Median:
			add("turns: mean (%d) must be >= median (%d)", t.Mean, t.Median)
		case t.Min > t.Median:
			add("turns: min (%d) must be <= median (%d)", t.Min, t.Median)
		case t.Mean > t.Max:
			add("turns: mean (%d) must be <= max (%d)", t.Mean, t.Max)
		}
		if t.AllowTruncation && t.MaxSessionAttempts != nil {
			add("turns: max_session_attempts cannot be set when allow_truncation is true")
		}
		if !t.AllowTruncation && t.MaxSessionAttempts == nil {
			n := 100
			t.MaxSessionAttempts = &n
		}
		if c.Reset != nil {
			add("turns mode cannot be combined with reset")
		}
		if c.RestartInitialProbability != 0 {
			add("turns mode cannot be combined with restart_initial_probability")
		}
		if len(errs) == 0 {
			if err := c.turnsFeasible(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// turnsFeasible rejects an explicit turn count that cannot fit under
// max_prompt_tokens even with the shortest draws.
func (c *Config) turnsFeasible() error {
	minL2, minNew := 1, 1
	if m := c.Cache.Layer2.Min; m != nil {
		minL2 = int(*m)
	}
	if m := c.NewTokensPerTurn.Min; m != nil {
		minNew = int(*m)
	}
	minOut := outputFloor
	if m := c.GenerationLength.Max; m != nil {
		minOut = min(outputFloor, int(*m))
	}
	in := c.Cache.Layer1Tokens + c.Cache.Layer15Tokens + minL2
	if in >= c.MaxPromptTokens {
		return errors.New("turns mode is impossible: the shortest initial context reaches max_prompt_tokens")
	}
	if c.Turns.AllowTruncation {
		return nil
	}
	for range c.Turns.Min - 1 {
		if in += minOut + minNew; in >= c.MaxPromptTokens {
			return errors.New("turns mode is impossible: the minimum turn count cannot fit under max_prompt_tokens")
		}
	}
	return nil
}

// Override applies the command line's --max-isl (the context limit) and
// --max-osl (the output maximum), then validates again.
func (c *Config) Override(maxISL, maxOSL *int) error {
	if maxISL != nil {
		c.MaxPromptTokens = *maxISL
	}
	if maxOSL != nil {
		m := float64(*maxOSL)
		c.GenerationLength.Max = &m
		if err := c.GenerationLength.check(); err != nil {
			return fmt.Errorf("--max-osl: %w", err)
		}
	}
	if err := c.validate(); err != nil {
		return fmt.Errorf("with --max-isl/--max-osl: %w", err)
	}
	return nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
