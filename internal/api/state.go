package api

import (
	"math"
	"sort"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/live"
)

// System states, AIPerf's SystemState values as this run goes through them.
const (
	stateInitializing = "initializing"
	stateProfiling    = "profiling"
	stateProcessing   = "processing"
	stateShutdown     = "shutdown"
)

// Result statuses of /api/results, AIPerf's BenchmarkStatus values plus
// failed (the run ended with an error and wrote no summary).
const (
	StatusRunning    = "running"
	StatusComplete   = "complete"
	StatusCancelled  = "cancelled"
	StatusIncomplete = "incomplete"
	StatusFailed     = "failed"
)

// state is what the observers saw, guarded by mu: the observer callbacks
// write it (from the run's publisher and record consumer), handlers read
// it.
type state struct {
	mu sync.Mutex

	snap    *live.Snapshot // the latest snapshot; nil before the first
	workers map[string]*workerCount

	finished bool
	status   string
	errText  string
	results  []byte // profile_export_aiperf.json, when written
}

// workerCount is one worker's finished requests.
type workerCount struct {
	completed, failed int
	last              time.Time
}

func (s *state) observe(snap *live.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap != nil && snap.Seq == 1 { // a new run (multi-run experiments)
		s.workers = nil
	}
	s.snap = snap
}

func (s *state) observeRecord(r *live.Record) {
	if r.WorkerID == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.workers == nil {
		s.workers = map[string]*workerCount{}
	}
	w := s.workers[r.WorkerID]
	if w == nil {
		w = &workerCount{}
		s.workers[r.WorkerID] = w
	}
	if r.Error != nil {
		w.failed++
	} else {
		w.completed++
	}
	w.last = r.End
}

// systemState is where the run is: before its first snapshot,
// profiling (warmup included), processing (the final snapshot is out,
// the artifacts are being written), shut down (Finish was called).
func (s *state) systemState() string {
	switch {
	case s.finished:
		return stateShutdown
	case s.snap == nil:
		return stateInitializing
	case s.snap.Final:
		return stateProcessing
	}
	return stateProfiling
}

// phaseStats is one phase's progress, AIPerf's CombinedPhaseStats keys
// for what this run knows, plus its schedule-lag fields.
type phaseStats struct {
	Phase               string   `json:"phase"`
	StartNs             int64    `json:"start_ns"`
	LastUpdateNs        int64    `json:"last_update_ns"`
	RequestsSent        int      `json:"requests_sent"`
	RequestsCompleted   int      `json:"requests_completed"`
	RequestsCancelled   int      `json:"requests_cancelled"`
	RequestErrors       int      `json:"request_errors"`
	SentSessions        int      `json:"sent_sessions"`
	CompletedSessions   int      `json:"completed_sessions"`
	CancelledSessions   int      `json:"cancelled_sessions"`
	TotalSessionTurns   int      `json:"total_session_turns"`
	SuccessRecords      int      `json:"success_records"`
	ErrorRecords        int      `json:"error_records"`
	InFlightRequests    int      `json:"in_flight_requests"`
	TotalExpected       *int     `json:"total_expected_requests,omitempty"`
	ExpectedDurationSec *float64 `json:"expected_duration_sec,omitempty"`
	ExpectedSessions    *int     `json:"expected_num_sessions,omitempty"`
	ElapsedSec          float64  `json:"requests_elapsed_time"`
	RequestsPerSecond   *float64 `json:"requests_per_second,omitempty"`
	ProgressPercent     *float64 `json:"requests_progress_percent,omitempty"`
	ETASec              *float64 `json:"requests_eta_sec,omitempty"`
	ErrorPercent        float64  `json:"requests_error_percent"`
	Complete            bool     `json:"is_requests_complete"`
	TimeoutTriggered    bool     `json:"timeout_triggered"`
	GraceTimeout        bool     `json:"grace_period_timeout_triggered"`
	WasCancelled        bool     `json:"was_cancelled"`
	LateRequests        int      `json:"late_requests"`
	MaxScheduleLagMs    float64  `json:"max_schedule_lag_ms"`
}

func phaseOf(p live.Progress, wall time.Time, complete bool) phaseStats {
	st := phaseStats{
		Phase:             p.Phase,
		StartNs:           wall.Add(-p.Elapsed).UnixNano(),
		LastUpdateNs:      wall.UnixNano(),
		RequestsSent:      p.Sent,
		RequestsCompleted: p.Completed(),
		RequestsCancelled: p.Cancelled,
		RequestErrors:     p.Failed(),
		SentSessions:      p.Sessions.Sent,
		CompletedSessions: p.Sessions.Completed,
		CancelledSessions: p.Sessions.Cancelled,
		TotalSessionTurns: p.Sessions.Turns,
		TimeoutTriggered:  p.TimedOut,
		GraceTimeout:      p.GraceTimedOut,
		WasCancelled:      p.Interrupted,
		SuccessRecords:    p.Done - p.Errors,
		ErrorRecords:      p.Errors,
		InFlightRequests:  p.InFlight,
		ElapsedSec:        p.Elapsed.Seconds(),
		Complete:          complete,
		LateRequests:      p.Late,
		MaxScheduleLagMs:  float64(p.MaxLag) / float64(time.Millisecond),
	}
	if p.Total > 0 {
		st.TotalExpected = ptr(p.Total)
	}
	if p.Duration > 0 {
		st.ExpectedDurationSec = ptr(p.Duration.Seconds())
	}
	if p.Sessions.Expected > 0 {
		st.ExpectedSessions = ptr(p.Sessions.Expected)
	}
	if p.Elapsed > 0 {
		st.RequestsPerSecond = ptr(p.Rate())
	}
	if f := p.Fraction(); f >= 0 {
		st.ProgressPercent = ptr(100 * f)
	}
	if eta, ok := p.ETA(); ok && !complete {
		st.ETASec = ptr(eta.Seconds())
	}
	if c := p.Completed(); c > 0 {
		st.ErrorPercent = 100 * float64(p.Failed()) / float64(c)
	}
	return st
}

// progressDoc is /api/progress: AIPerf's ProgressResponse.
type progressDoc struct {
	Phases          map[string]phaseStats `json:"phases"`
	Workers         workerStatus          `json:"workers"`
	ResultsExported bool                  `json:"results_exported"`
	SystemState     string                `json:"system_state"`
}

// workerStatus is AIPerf's AggregateWorkerStatus for one process.
type workerStatus struct {
	Ready int `json:"ready"`
	Total int `json:"total"`
}

func (s *state) progress() progressDoc {
	d := progressDoc{Phases: map[string]phaseStats{}, SystemState: s.systemState(), ResultsExported: s.results != nil}
	if s.snap != nil {
		for _, p := range s.snap.Finished {
			d.Phases[p.Phase] = phaseOf(p, s.snap.Wall, true)
		}
		if s.snap.Phase.Phase != "" {
			d.Phases[s.snap.Phase.Phase] = phaseOf(s.snap.Phase, s.snap.Wall, s.snap.Final)
		}
	}
	n := len(s.workers)
	d.Workers = workerStatus{Ready: n, Total: n}
	return d
}

// workersDoc is /api/workers: AIPerf's WorkersResponse, with one
// worker group for this process.
type workersDoc struct {
	Workers      map[string]workerDoc      `json:"workers"`
	WorkerGroups map[string]workerGroupDoc `json:"worker_groups"`
}

type workerDoc struct {
	WorkerID     string    `json:"worker_id"`
	TaskStats    taskStats `json:"task_stats"`
	Status       string    `json:"status"`
	LastUpdateNs int64     `json:"last_update_ns,omitempty"`
}

type taskStats struct {
	Total     int `json:"total"`
	Failed    int `json:"failed"`
	Completed int `json:"completed"`
}

type workerGroupDoc struct {
	GroupID         string               `json:"group_id"`
	Status          string               `json:"status"`
	DeclaredWorkers int                  `json:"declared_workers"`
	ReadyWorkers    int                  `json:"ready_workers"`
	TaskStats       taskStats            `json:"task_stats"`
	Workers         map[string]workerDoc `json:"workers"`
	Health          *healthDoc           `json:"health,omitempty"`
}

// healthDoc is the process's own health (AIPerf's ProcessHealth subset).
type healthDoc struct {
	CPUUsage   float64 `json:"cpu_usage"`
	Goroutines int     `json:"goroutines"`
	LagP99Ms   float64 `json:"schedule_lag_p99_ms"`
}

// groupID names the one worker group of a local run.
const groupID = "local"

func (s *state) workersDoc() workersDoc {
	d := workersDoc{Workers: map[string]workerDoc{}, WorkerGroups: map[string]workerGroupDoc{}}
	g := workerGroupDoc{GroupID: groupID, Status: "idle", Workers: d.Workers}
	running := s.snap != nil && !s.snap.Final
	ids := make([]string, 0, len(s.workers))
	for id := range s.workers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		w := s.workers[id]
		st := taskStats{Total: w.completed + w.failed, Failed: w.failed, Completed: w.completed}
		status := "idle"
		if running {
			status = "healthy"
		}
		d.Workers[id] = workerDoc{WorkerID: id, TaskStats: st, Status: status, LastUpdateNs: w.last.UnixNano()}
		g.TaskStats.Total += st.Total
		g.TaskStats.Failed += st.Failed
		g.TaskStats.Completed += st.Completed
	}
	g.DeclaredWorkers, g.ReadyWorkers = len(ids), len(ids)
	if running {
		g.Status = "healthy"
	}
	if s.snap != nil {
		h := s.snap.Health
		cpu := h.CPUPct
		if math.IsNaN(cpu) {
			cpu = 0
		}
		g.Health = &healthDoc{CPUUsage: cpu, Goroutines: h.Goroutines, LagP99Ms: float64(h.LagP99) / float64(time.Millisecond)}
	}
	d.WorkerGroups[groupID] = g
	return d
}

func ptr[T any](v T) *T { return &v }
