package api

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
)

// The WebSocket protocol at /ws, AIPerf's: a client sends
//
//	{"type": "subscribe", "message_types": ["credit_phase_progress", "realtime_metrics"]}
//
// ("*" subscribes to everything) and gets {"type": "subscribed", ...} back,
// then every message of those types as
//
//	{"message_type": "credit_phase_progress", "service_id": "...", "request_ns": ..., "stats": {...}}
//
// "unsubscribe" takes types away; {"type": "ping"} is answered with
// {"type": "pong"}; a malformed request gets {"type": "error", "message": ...}.
// Message types: credit_phase_progress (every 250 ms), realtime_metrics
// and worker_status_summary (every second), credit_phase_complete,
// benchmark_complete and results_exported.

// maxClients bounds the WebSocket connections (AIPerf's default cap).
const maxClients = 100

// sendQueue is how many messages may wait for a slow client before it is
// dropped: the run never waits for a subscriber.
const sendQueue = 256

// wildcard subscribes to every message type.
const wildcard = "*"

// serviceOf names the AIPerf service that sends each message type.
var serviceOf = map[string]string{
	"credit_phase_progress": "timing_manager", "credit_phase_complete": "timing_manager",
	"realtime_metrics": "records_manager", "results_exported": "system_controller",
	"worker_status_summary": "worker_manager", "benchmark_complete": "system_controller",
}

// hub fans messages out to the subscribed clients.
type hub struct {
	log     *slog.Logger
	secrets []string
	mu      sync.Mutex
	clients map[*client]struct{}
	closed  bool
}

type client struct {
	conn *wsConn
	out  chan []byte
	mu   sync.Mutex // subs
	subs map[string]bool
}

func newHub(log *slog.Logger, secrets []string) *hub {
	return &hub{log: log, secrets: secrets, clients: map[*client]struct{}{}}
}

func (c *client) subscribed(typ string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subs[wildcard] || c.subs[typ]
}

// broadcast sends one message to every client subscribed to typ. A
// client whose queue is full is disconnected.
func (h *hub) broadcast(typ string, requestNs int64, payload map[string]any) {
	h.mu.Lock()
	targets := make([]*client, 0, len(h.clients))
	for c := range h.clients {
		if c.subscribed(typ) {
			targets = append(targets, c)
		}
	}
	h.mu.Unlock()
	if len(targets) == 0 {
		return
	}
	msg := map[string]any{"message_type": typ, "service_id": serviceOf[typ], "request_ns": requestNs}
	for k, v := range payload {
		msg[k] = v
	}
	b, err := json.Marshal(msg)
	if err != nil {
		h.log.Warn("api: websocket message", "type", typ, "error", err)
		return
	}
	b = []byte(scrub(string(b), h.secrets))
	for _, c := range targets {
		select {
		case c.out <- b:
		default:
			h.log.Warn("api: websocket client too slow; disconnecting", "remote", c.conn.conn.RemoteAddr().String())
			c.conn.close(closeTryAgainLater, "too slow")
		}
	}
}

func (h *hub) add(c *client) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(h.clients) >= maxClients {
		return false
	}
	h.clients[c] = struct{}{}
	return true
}

func (h *hub) remove(c *client) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
}

// closeAll says goodbye to every client (the server is stopping).
func (h *hub) closeAll() {
	h.mu.Lock()
	h.closed = true
	cs := make([]*client, 0, len(h.clients))
	for c := range h.clients {
		cs = append(cs, c)
	}
	h.mu.Unlock()
	for _, c := range cs {
		c.conn.close(closeGoingAway, "server stopping")
	}
}

// websocket serves /ws: one reader (this handler's goroutine) and one
// writer goroutine per client.
func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrade(w, r)
	if err != nil {
		return
	}
	c := &client{conn: conn, out: make(chan []byte, sendQueue), subs: map[string]bool{}}
	if !s.hub.add(c) {
		conn.close(closeTryAgainLater, "max connections reached")
		return
	}
	defer s.hub.remove(c)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case b := <-c.out:
				if err := conn.write(opText, b); err != nil {
					return
				}
			case <-stop:
				return
			}
		}
	}()
	for {
		text, err := conn.readMessage()
		if err != nil {
			conn.close(closeNormal, "")
			return
		}
		reply := s.hub.request(c, text)
		if reply == nil {
			continue
		}
		b, _ := json.Marshal(reply)
		select {
		case c.out <- b:
		default:
			conn.close(closeTryAgainLater, "too slow")
			return
		}
	}
}

// request handles one client message and returns the reply.
func (h *hub) request(c *client, text string) map[string]any {
	var req struct {
		Type         string          `json:"type"`
		MessageTypes json.RawMessage `json:"message_types"`
	}
	if err := json.Unmarshal([]byte(text), &req); err != nil {
		return map[string]any{"type": "error", "message": "Invalid JSON: " + err.Error()}
	}
	switch req.Type {
	case "ping":
		return map[string]any{"type": "pong"}
	case "subscribe", "unsubscribe":
		var types []string
		if len(req.MessageTypes) > 0 {
			if err := json.Unmarshal(req.MessageTypes, &types); err != nil {
				return map[string]any{"type": "error", "message": "message_types must be a list of strings"}
			}
		}
		c.mu.Lock()
		for _, t := range types {
			if req.Type == "subscribe" {
				c.subs[t] = true
			} else {
				delete(c.subs, t)
			}
		}
		c.mu.Unlock()
		return map[string]any{"type": req.Type + "d", "message_types": append([]string{}, types...)}
	}
	return map[string]any{"type": "error", "message": "unknown request type " + jsonString(req.Type) + " (subscribe, unsubscribe or ping)"}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
