package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// session is one client connection and the upstream connection the
// proxy opened for it. Three goroutines: requests (client → broker),
// responses (broker → proxy) and deliver (proxy → client). The queue
// holds every request the client is owed an answer for, and every
// duplicate the proxy sent, in the order they went upstream (a request
// the proxy answers itself takes its place in the client's order): the
// broker answers in that order, and deliver writes the answers to the
// client in it, which is how an error-response or a delayed response
// keeps the order Kafka clients rely on.
type session struct {
	p      *Proxy
	l      *listener
	client net.Conn

	done      chan struct{}
	ctx       context.Context // ends with the session: stops the dial
	cancel    context.CancelFunc
	closeOnce sync.Once
	kick      chan struct{} // capacity 1: something in the queue became ready
	wg        sync.WaitGroup

	mu       sync.Mutex
	upstream net.Conn
	queue    []*exchange
	muted    bool // deliver met a dropped exchange: nothing reaches the client any more

	upMu  sync.Mutex // one write upstream at a time, with its queue entry
	ownID int32      // the last correlation id the proxy used for a duplicate (-1, -2, ...)

	stalled atomic.Bool // a drop happened: rules no longer look at this connection
}

// frameReadBuffer is each direction's read buffer: a few frames of the
// usual size at once.
const frameReadBuffer = 64 << 10

// exchange is one request and what becomes of its answer.
type exchange struct {
	h          requestHeader // for a duplicate, CorrelationID is the proxy's own id
	clientCorr int32         // the client's correlation id
	broker     int32
	rule       *rule        // the rule acting on it (nil: none)
	body       kmsg.Request // decoded when a Filter or the action needed it

	awaiting  bool   // forwarded; the broker's response not yet in
	duplicate bool   // the proxy's own duplicate: its response is swallowed
	ready     bool   // what the client gets is known
	out       []byte // the response frame the client gets (nil: nothing)
	stall     bool   // the client never gets this answer nor any after it
}

func newSession(p *Proxy, l *listener, c net.Conn) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{p: p, l: l, client: c, done: make(chan struct{}), ctx: ctx, cancel: cancel, kick: make(chan struct{}, 1)}
}

func (s *session) close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.cancel()
		s.client.Close()
		s.mu.Lock()
		if s.upstream != nil {
			s.upstream.Close()
		}
		s.mu.Unlock()
	})
}

func (s *session) run() {
	d := net.Dialer{Timeout: s.p.opts.DialTimeout}
	up, err := d.DialContext(s.ctx, "tcp", s.l.upstream)
	if err != nil {
		s.p.report(fmt.Errorf("proxy: dial %s: %w", s.l.upstream, err))
		s.close()
		return
	}
	s.mu.Lock()
	s.upstream = up
	s.mu.Unlock()
	select {
	case <-s.done: // closed while dialing
		up.Close()
		return
	default:
	}
	s.wg.Add(2)
	go func() { defer s.wg.Done(); s.requests() }()
	go func() { defer s.wg.Done(); s.responses() }()
	s.deliver()
	s.close()
	s.wg.Wait()
	s.settle()
}

// settle accounts for the actions a closed connection left undone: a
// response-side action whose response never came gives its claim back
// (First counts actions taken), and a duplicate whose response never came
// is reported so.
func (s *session) settle() {
	for _, e := range s.queue {
		if !e.awaiting || e.rule == nil {
			continue
		}
		if e.duplicate {
			s.emit(e, Action{Note: "connection closed before the duplicate's response"})
		} else if e.rule.onResponse() {
			e.rule.release()
		}
	}
	s.queue = nil
}

func (s *session) requests() {
	defer s.close()
	dropping := false // after a drop-request nothing more goes upstream
	// Buffered: a small frame (most responses, many requests) is then one
	// read, not two; the reader is this goroutine's alone.
	clientR := bufio.NewReaderSize(s.client, frameReadBuffer)
	for {
		frame, err := readFrame(clientR)
		if err != nil {
			if errors.Is(err, errFrameTooLarge) {
				s.p.report(fmt.Errorf("proxy: from client of %s: %w", s.l.upstream, err))
			}
			return
		}
		h, err := parseRequestHeader(frame)
		if err != nil {
			s.p.report(fmt.Errorf("proxy: request from client of %s: %w", s.l.upstream, err))
			return
		}
		if dropping {
			continue
		}
		e := &exchange{h: h, clientCorr: h.CorrelationID, broker: s.l.node.Load()}
		answered := expectsResponse(h, frame)
		if !s.stalled.Load() {
			e.rule = s.p.decide(&e.h, e.broker, frame, answered, &e.body)
		}
		r := e.rule
		if r == nil {
			if !s.forward(e, frame, answered) {
				return
			}
			continue
		}
		switch r.Action {
		case DropRequest:
			r.acted()
			s.emit(e, Action{})
			s.stalled.Store(true)
			dropping = true
			e.ready, e.stall = true, true
			s.enqueue(e)
		case Delay:
			if !r.DelayResponse {
				r.acted()
				s.emit(e, Action{Delay: r.Delay})
				if !s.sleep(r.Delay) {
					return
				}
			}
			if !s.forward(e, frame, answered) {
				return
			}
		case DuplicateRequest:
			if !s.forward(e, frame, answered) {
				return
			}
			if r.Delay == 0 {
				s.duplicate(e, frame, answered)
				continue
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				if !s.sleep(r.Delay) {
					s.notDuplicated(e)
					return
				}
				s.duplicate(e, frame, answered)
			}()
		case ResetAfterRequest:
			s.forward(e, frame, answered)
			r.acted()
			s.emit(e, Action{})
			return
		case ErrorResponse:
			if !s.answer(e, frame) && !s.forward(e, frame, answered) {
				return
			}
		default: // DropResponse, RewriteError: they act on the response
			if !s.forward(e, frame, answered) {
				return
			}
		}
	}
}

// answer queues the proxy's own error response to e instead of
// forwarding it; false when it cannot be built (the request is then
// forwarded and the rule's claim given back).
func (s *session) answer(e *exchange, frame []byte) bool {
	r := e.rule
	if e.body == nil {
		body, err := decodeRequest(frame, e.h)
		if err != nil {
			s.p.report(fmt.Errorf("proxy: error-response: %w", err))
			r.release()
			e.rule = nil
			return false
		}
		e.body = body
	}
	resp, ok := errorResponse(e.body, r.Code)
	if !ok {
		r.release()
		e.rule = nil
		return false
	}
	r.acted()
	s.emit(e, Action{Code: r.Code})
	e.out = responseFrame(e.clientCorr, resp, responseHeaderFlexible(e.h.Key, e.h.Version), nil)
	e.ready = true
	s.enqueue(e)
	return true
}

// forward sends a request upstream, queued to await its answer when the
// broker will give one; false when the upstream connection failed.
func (s *session) forward(e *exchange, frame []byte, answered bool) bool {
	s.upMu.Lock()
	defer s.upMu.Unlock()
	if answered {
		e.awaiting = true
		s.enqueue(e)
	}
	if _, err := s.upstream.Write(frame); err != nil {
		s.close()
		return false
	}
	return true
}

// duplicate sends the request of e again under a correlation id of the
// proxy's own, queued so that its response is swallowed where it comes.
func (s *session) duplicate(e *exchange, frame []byte, answered bool) {
	s.upMu.Lock()
	defer s.upMu.Unlock()
	select {
	case <-s.done:
		s.notDuplicated(e)
		return
	default:
	}
	e.rule.acted()
	s.ownID--
	d := &exchange{h: e.h, clientCorr: e.clientCorr, broker: e.broker, rule: e.rule, duplicate: true}
	d.h.CorrelationID = s.ownID
	if answered {
		d.awaiting = true
		s.enqueue(d)
	}
	if _, err := s.upstream.Write(withRequestCorrelation(frame, s.ownID)); err != nil {
		s.close()
	}
	if !answered {
		s.emit(d, Action{Delay: e.rule.Delay, Note: "the broker answers no duplicate (acks=0)"})
	}
}

// notDuplicated reports a duplicate the connection's close kept from
// being sent: an event that says so, and the rule's claim given back, for
// no action was taken (First counts actions taken).
func (s *session) notDuplicated(e *exchange) {
	e.rule.release()
	s.emit(e, Action{Delay: e.rule.Delay, Note: "connection closed before the duplicate was sent"})
}

func (s *session) enqueue(e *exchange) {
	s.mu.Lock()
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	s.wake()
}

func (s *session) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *session) responses() {
	defer s.close()
	upstreamR := bufio.NewReaderSize(s.upstream, frameReadBuffer)
	for {
		frame, err := readFrame(upstreamR)
		if err != nil {
			if errors.Is(err, errFrameTooLarge) {
				s.p.report(fmt.Errorf("proxy: from %s: %w", s.l.upstream, err))
			}
			return
		}
		if len(frame) < 8 {
			s.p.report(fmt.Errorf("proxy: from %s: %w", s.l.upstream, errShortFrame))
			return
		}
		e := s.match(correlationOfResponse(frame))
		if e == nil {
			s.p.report(fmt.Errorf("proxy: from %s: response to correlation id %d, which no request awaits", s.l.upstream, correlationOfResponse(frame)))
			return
		}
		if !s.onResponse(e, frame) {
			return
		}
		s.wake()
	}
}

// match is the queued exchange a response answers: the oldest awaiting
// one (brokers answer in order), checked by its correlation id.
func (s *session) match(corr int32) *exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.queue {
		if e.awaiting && e.h.CorrelationID == corr {
			e.awaiting = false
			return e
		}
	}
	return nil
}

// onResponse makes what the client gets of a response: rewritten
// addresses, capped versions, and the rule's response-side action.
// false when the connection closed during a delay.
func (s *session) onResponse(e *exchange, frame []byte) bool {
	key, version := e.h.Key, e.h.Version
	r := e.rule
	rewrite := !s.l.route // a route's responses keep the brokers' addresses and versions (Proxy.Route)
	decode := (rewrite && (carriesAddresses(key, version) || key == int16(kmsg.ApiVersions))) || e.duplicate ||
		(r != nil && (r.Action == DropResponse || r.Action == RewriteError))
	var resp kmsg.Response
	var tags []byte
	if decode && knownAPI(key) && version > maxVersion[key] {
		// Only a client that skipped ApiVersions gets here (its answer
		// is capped to kmsg's versions): forwarded as it came.
		s.p.report(fmt.Errorf("proxy: %s v%d response from %s is above kmsg's v%d: forwarded unchanged", apiName(key), version, s.l.upstream, maxVersion[key]))
		decode = false
	}
	if decode && knownAPI(key) {
		var err error
		if resp, tags, err = decodeResponse(frame, key, version); err != nil {
			// A broker that does not know the ApiVersions version asked
			// answers in v0 with UNSUPPORTED_VERSION, and the client asks
			// again lower: not worth a report.
			if key != int16(kmsg.ApiVersions) {
				s.p.report(fmt.Errorf("proxy: from %s: %w", s.l.upstream, err))
			}
			resp = nil
		}
	}
	changed := false
	if resp != nil && rewrite {
		if carriesAddresses(key, version) {
			changed = rewriteAddresses(resp, s.p.mapAddress)
		}
		if v, ok := resp.(*kmsg.ApiVersionsResponse); ok {
			changed = capAPIVersions(v) || changed
		}
	}
	var out []byte
	switch {
	case e.duplicate:
		a := Action{Delay: r.Delay}
		if resp != nil {
			a.ErrorCodes = errorCodes(resp)
		} else {
			a.Note = "the duplicate's response could not be decoded"
		}
		s.emit(e, a)
		s.resolve(e, nil, false)
		return true
	case r != nil && r.Action == DropResponse:
		r.acted()
		s.stalled.Store(true)
		a := Action{}
		if resp != nil {
			a.ErrorCodes = errorCodes(resp)
		}
		s.emit(e, a)
		s.resolve(e, nil, true)
		return true
	case r != nil && r.Action == RewriteError:
		if resp == nil {
			r.release()
			break
		}
		r.acted()
		s.emit(e, Action{Code: r.Code, ErrorCodes: errorCodes(resp)})
		setErrorCodes(resp, r.Code)
		changed = true
	case r != nil && r.Action == Delay && r.DelayResponse:
		r.acted()
		s.emit(e, Action{Delay: r.Delay})
		if !s.sleep(r.Delay) {
			return false
		}
	}
	out = frame
	if changed {
		out = responseFrame(e.clientCorr, resp, responseHeaderFlexible(key, version), tags)
	}
	s.resolve(e, out, false)
	return true
}

func (s *session) resolve(e *exchange, out []byte, stall bool) {
	s.mu.Lock()
	e.out, e.stall, e.ready = out, stall, true
	s.mu.Unlock()
}

// deliver writes the ready answers at the head of the queue to the
// client, in order; from a dropped exchange on, it only discards them.
func (s *session) deliver() {
	for {
		select {
		case <-s.kick:
		case <-s.done:
			return
		}
		for {
			s.mu.Lock()
			if len(s.queue) == 0 || !s.queue[0].ready {
				s.mu.Unlock()
				break
			}
			e := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			s.muted = s.muted || e.stall
			muted, out := s.muted, e.out
			s.mu.Unlock()
			if muted || out == nil {
				continue
			}
			if _, err := s.client.Write(out); err != nil {
				return
			}
		}
	}
}

// sleep waits d; false when the connection closed first.
func (s *session) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.done:
		return false
	}
}

func (s *session) emit(e *exchange, a Action) {
	a.RuleID, a.Kind = e.rule.id, e.rule.Action
	a.APIKey, a.API, a.Version = e.h.Key, apiName(e.h.Key), e.h.Version
	a.CorrelationID, a.ClientID, a.Broker = e.clientCorr, e.h.ClientID, e.broker
	a.Time = s.p.opts.Now()
	s.p.emit(a)
}
