package benchmark

import (
	"math"
	"time"

	"github.com/aiperf-go/aiperf/internal/timing"
)

// userExecutor is user-centric mode (--user-centric-rate, --num-users):
// each user is a session that sends its conversation's turns a fixed gap
// apart, the users together sending UserRate requests/s. It replaces the
// arrivals and the picks of what is below it.
type userExecutor struct{}

func (userExecutor) applies(_ *Plan, spec *PhaseSpec) bool { return spec.Users > 0 }

func (userExecutor) shape(r *phaseRunner, spec *PhaseSpec, _ uint64, l *phaseLoad) error {
	users := &userPicks{next: l.pick, turns: func(c int) int { n, _, _ := r.plan.Dataset.FirstTurn(c); return n }}
	uc, err := timing.NewUserCentric(spec.UserRate, spec.Users, r.plan.meanTurns(), users.length)
	if err != nil {
		return phaseErr(spec, "user-centric schedule", err)
	}
	l.arrivals, l.pick = uc, users.pick
	l.sleeper = rateSleeper(r.plan.Env, time.Duration(float64(time.Second)/spec.UserRate))
	return nil
}

// userPicks hands each user-centric user its conversation: the schedule
// asks for the next user's conversation length as it generates the user,
// in the order the scheduler dispatches users, so the conversation picked
// then is queued for the worker's Pick.
type userPicks struct {
	next  func() int // the dataset sampler
	turns func(conv int) int
	queue []int
}

// length picks the next user's conversation and returns its turns.
func (u *userPicks) length() int {
	c := u.next()
	u.queue = append(u.queue, c)
	return u.turns(c)
}

// pick returns the conversation of the user being dispatched.
func (u *userPicks) pick() int {
	if len(u.queue) == 0 {
		return u.next()
	}
	c := u.queue[0]
	u.queue = u.queue[1:]
	return c
}

// meanTurns is the dataset's average turns per conversation, rounded as
// AIPerf rounds it for the user-centric session lifetime.
func (p *Plan) meanTurns() int {
	n := p.Dataset.Len()
	if n == 0 {
		return 1
	}
	total := 0
	for i := range n {
		turns, _, _ := p.Dataset.FirstTurn(i)
		total += turns
	}
	return max(1, int(math.RoundToEven(float64(total)/float64(n))))
}
