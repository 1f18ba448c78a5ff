package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// openLoopMain is the open-loop reference: the leanest client this
// machine allows, to put beside aiperf's open loop at the same rate
// against the same server. wrk is closed loop (a request goes out when the
// previous one on its connection is answered), so it says what the server
// can take, not how punctually an open-loop client can send.
//
// One OS thread does everything with raw system calls (Linux: epoll plus a
// timerfd armed to each due time, see openloop_linux.go): request n is due
// at start + n/rate (or on a seeded Poisson schedule of that rate, as
// aiperf's --arrival-pattern poisson); when due it is written, as pre-built HTTP/1.1 bytes,
// on a free connection of -conns opened before the start; responses are
// read and discarded. Its lag is send - due, and its CPU per request
// (user + system of the whole process over the run, from getrusage) is
// what sending, reading and pacing cost at the very least here.
//
// It prints one line: asked achieved lag_p50_ms lag_p99_ms lag_max_ms
// cpu_us_per_req user_us_per_req sys_us_per_req ok errors waited wakes, where
// achieved is the ok responses per second from the start to the last
// response, and waited counts the requests that found every connection
// busy when due (they went out on the next free one, their wait in the
// lag) and wakes the timer wake-ups.
func openLoopMain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("openloop", flag.ContinueOnError)
	target := fs.String("url", "", "request URL (http://host:port/path)")
	rate := fs.Float64("rate", 1000, "requests per second (constant arrivals)")
	dur := fs.Duration("duration", 5*time.Second, "schedule length; rate*duration requests")
	conns := fs.Int("conns", 64, "connections opened before the start")
	osl := fs.Int("osl", 16, "max_tokens of the default body (bench/wrk-chat.lua's chat request)")
	body := fs.String("body", "", "request body (JSON); default: the chat request with -osl")
	grace := fs.Duration("grace", 5*time.Second, "how long to wait for the last responses")
	arrival := fs.String("arrival", "constant", "constant (1/rate apart) or poisson (exponential gaps of mean 1/rate, seeded)")
	seed := fs.Uint64("seed", 1, "seed of the poisson schedule")
	quantum := fs.Duration("quantum", 0, "shortest time between two timer wake-ups: requests due in between go out together at the next (aiperf's pacer batching, timing.Options.Quantum); 0 wakes for every due time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n := int(*rate * dur.Seconds())
	if *rate <= 0 || n < 1 || *conns < 1 || *target == "" || *quantum < 0 {
		return errors.New("openloop: need -url, -rate > 0, -conns >= 1, -quantum >= 0 and rate*duration >= 1")
	}
	if *arrival != "constant" && *arrival != "poisson" {
		return fmt.Errorf("openloop: -arrival %q: want constant or poisson", *arrival)
	}
	u, err := url.Parse(*target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return fmt.Errorf("openloop: -url %q: want http://host:port/path", *target)
	}
	if *body == "" {
		*body = chatBody(*osl)
	}
	res, err := openLoop(openLoopConfig{
		Addr:    u.Host,
		Request: rawRequest(u, []byte(*body)),
		N:       n,
		Dues:    dueTimes(*arrival, *rate, n, *seed),
		Conns:   *conns,
		Grace:   *grace,
		Quantum: *quantum,
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, res.line(*rate))
	return nil
}

// dueTimes returns n due offsets for rate requests/s: 1/rate apart
// (constant) or with exponential gaps of that mean from a seeded source
// (poisson), the first at 0.
func dueTimes(arrival string, rate float64, n int, seed uint64) []time.Duration {
	dues := make([]time.Duration, n)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	t := 0.0
	for i := range dues {
		dues[i] = time.Duration(t * float64(time.Second))
		if arrival == "poisson" {
			t += rng.ExpFloat64() / rate
		} else {
			t = float64(i+1) / rate
		}
	}
	return dues
}

// chatBody is the non-streaming chat completion bench/wrk-chat.lua posts
// (16 input words, osl output tokens, ignore_eos), so the reference, wrk
// and aiperf ask the mock for the same work.
func chatBody(osl int) string {
	return `{"model":"mock-model","messages":[{"role":"user","content":"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"}],"max_tokens":` +
		strconv.Itoa(osl) + `,"ignore_eos":true}`
}

// rawRequest builds the bytes of one keep-alive POST of body to u.
func rawRequest(u *url.URL, body []byte) []byte {
	path := u.RequestURI()
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, u.Host, len(body))
	b.Write(body)
	return b.Bytes()
}

// openLoopConfig is one reference run.
type openLoopConfig struct {
	Addr    string          // host:port
	Request []byte          // one complete request, sent as is
	N       int             // requests
	Dues    []time.Duration // request n is due at start + Dues[n]; len N, sorted
	Conns   int
	Grace   time.Duration // wait for responses after the last send
	Quantum time.Duration // shortest time between timer wake-ups (batching)
}

// openLoopResult is what a reference run measured.
type openLoopResult struct {
	Lags        []time.Duration // send - due, one per request sent, sorted
	OK, Errors  int             // 2xx responses; other statuses, broken or missing responses
	Waited      int             // requests that found no free connection when due
	Wakes       int             // timer wake-ups
	Elapsed     time.Duration   // start to the last response
	User, Sys   time.Duration   // the process's CPU over the run
	Connections int
}

// line formats the result as openLoopMain's output line.
func (r openLoopResult) line(asked float64) string {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	lags := make([]float64, len(r.Lags))
	for i, l := range r.Lags {
		lags[i] = ms(l)
	}
	var p50, p99, mx float64
	if len(lags) > 0 {
		p50, p99, mx = stats.Percentile(lags, 50), stats.Percentile(lags, 99), lags[len(lags)-1]
	}
	achieved := 0.0
	if r.Elapsed > 0 {
		achieved = float64(r.OK) / r.Elapsed.Seconds()
	}
	per := func(d time.Duration) float64 {
		if n := len(r.Lags); n > 0 {
			return float64(d) / float64(time.Microsecond) / float64(n)
		}
		return 0
	}
	return fmt.Sprintf("%.0f %.1f %.3f %.3f %.3f %.1f %.1f %.1f %d %d %d %d",
		asked, achieved, p50, p99, mx, per(r.User+r.Sys), per(r.User), per(r.Sys), r.OK, r.Errors, r.Waited, r.Wakes)
}

// errIncomplete: the buffer holds only part of a response.
var errIncomplete = errors.New("incomplete response")

// parseResponse reads one HTTP/1.1 response from the start of b and
// returns its length and status code; errIncomplete when b ends before
// the response does. It knows exactly what the reference needs: a status
// line, headers, and a body framed by Content-Length or chunked
// transfer coding (trailers included); any other framing is an error.
func parseResponse(b []byte) (n, status int, err error) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if len(b) > 64<<10 {
			return 0, 0, errors.New("response header over 64 KiB")
		}
		return 0, 0, errIncomplete
	}
	head := b[:end]
	line, rest, _ := bytes.Cut(head, []byte("\r\n"))
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, 0, fmt.Errorf("bad status line %q", line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil || status < 100 {
		return 0, 0, fmt.Errorf("bad status line %q", line)
	}
	length, chunked := -1, false
	for len(rest) > 0 {
		var h []byte
		h, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		k, v, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return 0, 0, fmt.Errorf("bad header line %q", h)
		}
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(v)); err != nil || length < 0 {
				return 0, 0, fmt.Errorf("bad Content-Length %q", v)
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			if !bytes.EqualFold(v, []byte("chunked")) {
				return 0, 0, fmt.Errorf("unsupported Transfer-Encoding %q", v)
			}
			chunked = true
		}
	}
	bodyAt := end + 4
	switch {
	case status == 204 || status == 304 || status < 200:
		return bodyAt, status, nil
	case chunked:
		m, err := chunkedLength(b[bodyAt:])
		if err != nil {
			return 0, 0, err
		}
		return bodyAt + m, status, nil
	case length >= 0:
		if len(b) < bodyAt+length {
			return 0, 0, errIncomplete
		}
		return bodyAt + length, status, nil
	}
	return 0, 0, errors.New("response without Content-Length or chunked coding (read until close is not supported)")
}

// chunkedLength returns the length of the chunked body at the start of b,
// through the blank line after the last chunk and any trailers.
func chunkedLength(b []byte) (int, error) {
	at := 0
	for {
		i := bytes.Index(b[at:], []byte("\r\n"))
		if i < 0 {
			if len(b)-at > 1024 {
				return 0, errors.New("chunk size line over 1 KiB")
			}
			return 0, errIncomplete
		}
		sizeText, _, _ := bytes.Cut(b[at:at+i], []byte(";"))
		size, err := strconv.ParseUint(string(bytes.TrimSpace(sizeText)), 16, 31)
		if err != nil {
			return 0, fmt.Errorf("bad chunk size %q", b[at:at+i])
		}
		at += i + 2
		if size == 0 {
			// Trailers, then the blank line.
			for {
				j := bytes.Index(b[at:], []byte("\r\n"))
				if j < 0 {
					return 0, errIncomplete
				}
				at += j + 2
				if j == 0 {
					return at, nil
				}
			}
		}
		if len(b) < at+int(size)+2 {
			return 0, errIncomplete
		}
		if !bytes.Equal(b[at+int(size):at+int(size)+2], []byte("\r\n")) {
			return 0, errors.New("chunk not followed by CRLF")
		}
		at += int(size) + 2
	}
}

// sortLags sorts a run's lags for the percentiles.
func sortLags(l []time.Duration) { slices.Sort(l) }
