package timing

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"time"
)

// UserCentric is AIPerf's user-centric rate schedule (--user-centric-rate
// QPS --num-users U): U users share the rate, each sending one turn every
// gap = U/QPS seconds, and the schedule says when each user starts and how
// many turns it sends. It implements Arrivals (one credit per user); the
// per-turn pacing inside a user is UserTurnDue.
//
// Virtual history. So that the run is in steady state from t = 0, the U
// initial users are spread over a session lifetime L = max(1, T-1) gaps
// (T = the dataset's mean turns per conversation, rounded): user i (0..U-1)
// has a virtual age (U-i)*L, has already sent (U-i)*L/U (integer division)
// of its turns, and sends the remaining L - that; the oldest, with none
// left, is replaced by a fresh user with all its turns who starts at 0.
// Users start in a staggered order, one per 1/QPS: user i's order is
// U - (age mod U) (or U - (i*k mod U) with k the smallest step > 1 coprime
// with U, when U and L share a factor, so orders stay distinct).
//
// Replacement. When a user starts at s with m turns, its replacement is
// due at s + m*gap: the moment its turn slot frees if every response came
// in time. This is an absolute schedule, independent of response times, so
// the rate holds even when the server is slow.
type UserCentric struct {
	stagger, gap float64 // seconds
	pending      userHeap
	seq          int        // id of the next fresh user
	pushes       int        // starts queued so far, for stable tie order
	length       func() int // turns of the next fresh user's conversation
	last         UserStart
	done         bool
}

// UserStart is one user of the schedule: when it starts, how many turns it
// sends (its first Turns turns), and its 1-based id in AIPerf's numbering.
type UserStart struct {
	Due   time.Duration
	Turns int
	User  int
}

// NewUserCentric builds the schedule for qps shared by users users whose
// conversations have sessionTurns turns on average. length returns the
// turn count of the conversation the next fresh user will run (called once
// per user, in start order, so the caller can pick each user's
// conversation then); fresh users send that many turns, initial users
// with a virtual history fewer.
func NewUserCentric(qps float64, users, sessionTurns int, length func() int) (*UserCentric, error) {
	var errs []error
	if err := validRate(qps); err != nil {
		errs = append(errs, fmt.Errorf("user-centric rate: %w", err))
	}
	if users < 1 {
		errs = append(errs, fmt.Errorf("timing: user-centric mode needs at least one user, got %d", users))
	}
	if sessionTurns < 1 {
		errs = append(errs, fmt.Errorf("timing: user-centric mode needs conversations of at least one turn, got %d", sessionTurns))
	}
	if length == nil {
		errs = append(errs, errors.New("timing: user-centric mode needs the fresh users' conversation lengths"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	u := &UserCentric{stagger: 1 / qps, gap: float64(users) / qps, length: length}
	life := max(1, sessionTurns-1)
	step := 0
	if gcd(users, life) > 1 {
		step = coprimeStep(users)
	}
	id := 1
	for i := range users {
		age := (users - i) * life
		left := life - age/users
		if left <= 0 {
			id++ // virtually done before t = 0: its id is used up
			continue
		}
		slot := age % users
		if step > 0 {
			slot = (i * step) % users
		}
		u.push(float64(users-slot)*u.stagger, left, id)
		id++
	}
	u.push(0, 0, id) // the fresh user replacing the one that is done
	u.seq = id + 1
	return u, nil
}

// Gap is the per-user turn gap, users/qps.
func (u *UserCentric) Gap() time.Duration { return time.Duration(math.Round(u.gap * 1e9)) }

// Next implements Arrivals: the next user's start.
func (u *UserCentric) Next() (time.Duration, bool) {
	if u.done || len(u.pending) == 0 {
		return 0, false
	}
	e := heap.Pop(&u.pending).(userEvent)
	turns, user := e.turns, e.user
	if n := max(1, u.length()); turns == 0 {
		turns = n
	}
	if user == 0 { // a replacement: ids are given out as users spawn
		user = u.seq
		u.seq++
	}
	d, ok := secondsToDuration(e.at)
	if !ok {
		u.done = true
		return 0, false
	}
	// Its replacement, once all its turns' slots have passed.
	u.push(e.at+float64(turns)*u.gap, 0, 0)
	u.last = UserStart{Due: d, Turns: turns, User: user}
	return d, true
}

// shape implements sessionShaper: the scheduler stamps each credit with
// its user's turn count and the gap.
func (u *UserCentric) shape() (int, time.Duration) { return u.last.Turns, u.Gap() }

// Last returns the user whose start Next returned last.
func (u *UserCentric) Last() UserStart { return u.last }

// push adds a pending start; turns 0 marks a fresh user, user 0 a
// replacement whose id is given when it starts.
func (u *UserCentric) push(at float64, turns, user int) {
	heap.Push(&u.pending, userEvent{at: at, turns: turns, user: user, order: u.pushes})
	u.pushes++
}

// UserTurnDue is when a user-centric user's next turn is due: one gap
// after its previous turn was due, or now when the previous response came
// later than that. The late case sends at once and restarts the user's
// cadence from now, so a slow response never causes a catch-up burst.
func UserTurnDue(prevDue, gap, now time.Duration) time.Duration {
	return max(prevDue+gap, now)
}

// userEvent is a pending user start.
type userEvent struct {
	at    float64 // seconds from the phase start
	turns int     // 0: a fresh user, whose length is asked at start
	user  int
	order int // insertion order, breaking ties
}

// userHeap orders pending starts by time, then insertion.
type userHeap []userEvent

func (h userHeap) Len() int { return len(h) }
func (h userHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].order < h[j].order
}
func (h userHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *userHeap) Push(x any)   { *h = append(*h, x.(userEvent)) }
func (h *userHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// coprimeStep is the smallest step > 1 coprime with n, or 1 when n <= 2.
func coprimeStep(n int) int {
	for s := 2; s < n; s++ {
		if gcd(n, s) == 1 {
			return s
		}
	}
	return 1
}
