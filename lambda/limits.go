package lambda

import (
	"time"

	"golang.org/x/time/rate"
)

// Default limits (SPEC §5, §9).
const (
	DefaultMaxTextChars      = 4000       // characters (runes) of a message's text
	DefaultMaxBodyBytes      = 128 * 1024 // bytes of one client message (API Gateway's limit)
	DefaultMessagesPerSecond = 5          // sustained `message` frames per connection
	DefaultMessageBurst      = 10         // burst of `message` frames per connection
	DefaultSuggestionWindow  = 30 * time.Second
	DefaultActionTimeout     = 10 * time.Second
	DefaultTopK              = 3
)

// Limits bound what one connection may send. Zero fields take the defaults.
type Limits struct {
	MaxTextChars int // a longer message text gets `too_large`
	MaxBodyBytes int // a longer body gets `too_large`
	// MessagesPerSecond and MessageBurst shape a token bucket per
	// connection that only `message` frames draw from (cancel and
	// confirm_action are never refused, so nothing else is lost). The
	// buckets live in the Handler, in process: behind Lambda each instance
	// has its own, so the limit holds per instance, not globally.
	MessagesPerSecond float64
	MessageBurst      int
	// NoRateLimit turns the rate limit off (load tests).
	NoRateLimit bool
}

func (l Limits) withDefaults() Limits {
	if l.MaxTextChars <= 0 {
		l.MaxTextChars = DefaultMaxTextChars
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MessagesPerSecond <= 0 {
		l.MessagesPerSecond = DefaultMessagesPerSecond
	}
	if l.MessageBurst <= 0 {
		l.MessageBurst = DefaultMessageBurst
	}
	return l
}

// newLimiter returns the message limiter of a new connection, nil when rate
// limiting is off.
func (l Limits) newLimiter() *rate.Limiter {
	if l.NoRateLimit {
		return nil
	}
	return rate.NewLimiter(rate.Limit(l.MessagesPerSecond), l.MessageBurst)
}
