package lambda

import (
	"context"
	"maps"
	"sync"
	"time"
)

// Retention is how long the in-memory store keeps a suggestion after it
// expired (SPEC §6: records are kept at least 5 minutes).
const Retention = 5 * time.Minute

// MemStore is the in-memory [Store] of the local server: all state of one
// process behind one mutex, so every method is trivially atomic and cheap
// (the streaming loop may check the cancel flag between every two tokens).
// Expired suggestions are forgotten lazily, at most once a minute, during
// calls that carry a time. The zero value is not usable; call NewMemStore.
type MemStore struct {
	mu          sync.Mutex
	conns       map[string]Connection
	answers     map[string]*memAnswers         // by connection
	suggestions map[string]*Suggestion         // by id
	byConn      map[string]map[string]struct{} // connection → suggestion ids
	lastSweep   time.Time
}

// memAnswers are the answer records of one connection.
type memAnswers struct {
	current string                // the current answer's id, "" for none
	byMsg   map[string]*memAnswer // records by message id
}

type memAnswer struct {
	cancelled bool
	taken     bool // its end is taken
}

// record returns the record of msgID, nil if none. m.mu must be held.
func (m *MemStore) record(connID, msgID string) *memAnswer {
	if as := m.answers[connID]; as != nil {
		return as.byMsg[msgID]
	}
	return nil
}

// NewMemStore returns an empty in-memory store.
func NewMemStore() *MemStore {
	return &MemStore{
		conns:       make(map[string]Connection),
		answers:     make(map[string]*memAnswers),
		suggestions: make(map[string]*Suggestion),
		byConn:      make(map[string]map[string]struct{}),
	}
}

var _ Store = (*MemStore)(nil)

// PutConnection implements [Store].
func (m *MemStore) PutConnection(ctx context.Context, c Connection) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.conns[c.ID] = c
	m.sweep(c.ConnectedAt)
	return nil
}

// DeleteConnection implements [Store].
func (m *MemStore) DeleteConnection(ctx context.Context, connID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.conns, connID)
	delete(m.answers, connID)
	for id := range m.byConn[connID] {
		delete(m.suggestions, id)
	}
	delete(m.byConn, connID)
	return nil
}

// StartAnswer implements [Store].
func (m *MemStore) StartAnswer(ctx context.Context, connID, msgID string, now time.Time) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	as := m.answers[connID]
	if as == nil {
		as = &memAnswers{byMsg: make(map[string]*memAnswer)}
		m.answers[connID] = as
	}
	if as.byMsg[msgID] != nil {
		return "", ErrAnswerInUse
	}
	prev := as.current
	if a := as.byMsg[prev]; a != nil && !a.taken {
		a.cancelled = true // superseded
	}
	as.byMsg[msgID] = &memAnswer{}
	as.current = msgID
	return prev, nil
}

// CancelAnswer implements [Store].
func (m *MemStore) CancelAnswer(ctx context.Context, connID, msgID string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if msgID == "" {
		if as := m.answers[connID]; as != nil {
			msgID = as.current
		}
	}
	a := m.record(connID, msgID)
	if a == nil || a.cancelled || a.taken {
		return "", nil
	}
	a.cancelled = true
	return msgID, nil
}

// AnswerCancelled implements [Store].
func (m *MemStore) AnswerCancelled(ctx context.Context, connID, msgID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.record(connID, msgID)
	return a == nil || a.cancelled || a.taken, nil
}

// EndAnswer implements [Store].
func (m *MemStore) EndAnswer(ctx context.Context, connID, msgID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.record(connID, msgID)
	if a == nil || a.cancelled || a.taken {
		return false, nil
	}
	a.taken = true
	return true, nil
}

// TakeAnswerEnd implements [Store].
func (m *MemStore) TakeAnswerEnd(ctx context.Context, connID, msgID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.record(connID, msgID)
	if a == nil || !a.cancelled || a.taken {
		return false, nil
	}
	a.taken = true
	return true, nil
}

// ReleaseAnswer implements [Store].
func (m *MemStore) ReleaseAnswer(ctx context.Context, connID, msgID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	as := m.answers[connID]
	if as == nil {
		return nil
	}
	delete(as.byMsg, msgID)
	if as.current == msgID {
		as.current = ""
	}
	if len(as.byMsg) == 0 {
		delete(m.answers, connID)
	}
	return nil
}

// AnswerReleased implements [Store].
func (m *MemStore) AnswerReleased(ctx context.Context, connID, msgID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.record(connID, msgID) == nil, nil
}

// PutSuggestion implements [Store].
func (m *MemStore) PutSuggestion(ctx context.Context, s Suggestion) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.suggestions[s.ID]; dup {
		return ErrDuplicateSuggestion
	}
	s.Status = SuggestionPending
	s.Payload = maps.Clone(s.Payload)
	m.suggestions[s.ID] = &s
	ids := m.byConn[s.ConnectionID]
	if ids == nil {
		ids = make(map[string]struct{})
		m.byConn[s.ConnectionID] = ids
	}
	ids[s.ID] = struct{}{}
	m.sweep(s.CreatedAt)
	return nil
}

// ClaimSuggestion implements [Store].
func (m *MemStore) ClaimSuggestion(ctx context.Context, connID, id string, now time.Time) (Suggestion, ClaimOutcome, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	s := m.suggestions[id]
	if s == nil || s.ConnectionID != connID {
		return Suggestion{}, ClaimUnknown, nil
	}
	var out ClaimOutcome
	switch {
	case s.Status == SuggestionCancelled:
		out = ClaimCancelled
	case now.After(s.ExpiresAt):
		out = ClaimExpired
	case s.Status == SuggestionPending:
		s.Status = SuggestionExecuting
		s.ExpiresAt = now.Add(s.Window)
		out = ClaimExecute
	default: // executing or executed, within the window
		out = ClaimAlreadyExecuted
	}
	c := *s
	c.Payload = maps.Clone(s.Payload)
	return c, out, nil
}

// FinishSuggestion implements [Store].
func (m *MemStore) FinishSuggestion(ctx context.Context, connID, id string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.suggestions[id]
	if s == nil || s.ConnectionID != connID || s.Status != SuggestionExecuting {
		return nil
	}
	s.Status = SuggestionExecuted
	s.ExpiresAt = now.Add(s.Window)
	return nil
}

// WithdrawSuggestions implements [Store].
func (m *MemStore) WithdrawSuggestions(ctx context.Context, connID string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id := range m.byConn[connID] {
		if s := m.suggestions[id]; s.Status == SuggestionPending {
			s.Status = SuggestionCancelled
			// keep the record long enough to say "Suggestion cancelled"
			if s.ExpiresAt.Before(now) {
				s.ExpiresAt = now
			}
		}
	}
	m.sweep(now)
	return nil
}

// sweep forgets suggestions that expired more than Retention ago. It runs at
// most once a minute of store time. m.mu must be held.
func (m *MemStore) sweep(now time.Time) {
	if now.IsZero() || now.Sub(m.lastSweep) < time.Minute {
		return
	}
	m.lastSweep = now
	for id, s := range m.suggestions {
		if now.Sub(s.ExpiresAt) > Retention {
			delete(m.suggestions, id)
			if ids := m.byConn[s.ConnectionID]; ids != nil {
				delete(ids, id)
				if len(ids) == 0 {
					delete(m.byConn, s.ConnectionID)
				}
			}
		}
	}
}
