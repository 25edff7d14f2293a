package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/groundwire/groundwire/lambda"
)

// The events the local server hands to the lambda handler have the shape of
// API Gateway's (testdata/events/*.json): the same routes, event types and
// request context, so the handler cannot tell the two apart.
const (
	stage = "local"
	apiID = "local"

	routeConnect    = "$connect"
	routeDefault    = "$default"
	routeDisconnect = "$disconnect"

	// requestTimeLayout is API Gateway's requestTime: 22/Nov/2025:10:15:30 +0000.
	requestTimeLayout = "02/Jan/2006:15:04:05 -0700"
)

// newID returns a random id shaped like API Gateway's connection and
// message ids ("L0SM9cOFvHcCIhw="): 88 random bits, base64 with one "="
// (URL-safe alphabet, so that an id fits a /@connections/{id} path). A
// connection's id is one: unguessable.
func newID() string {
	var b [11]byte
	rand.Read(b[:])
	return encodeID(&b)
}

// eventIDs numbers the request and message ids of events (see eventID).
var eventIDs = newEventIDs()

type eventIDSource struct {
	prefix [3]byte // random, one per process
	key    uint64  // random, one per process
	n      atomic.Uint64
}

func newEventIDs() *eventIDSource {
	var b [11]byte
	rand.Read(b[:])
	s := &eventIDSource{key: binary.BigEndian.Uint64(b[3:])}
	copy(s.prefix[:], b[:3])
	return s
}

// eventID returns an id shaped as newID's for an event's requestId or
// messageId: unique in the process and, by a random prefix, across
// processes, but not unguessable — nothing is authorised by it — and so
// without a read of the system's random source for every frame (two a
// message were 1.5 % of the server's CPU under load).
func eventID() string {
	var b [11]byte
	copy(b[:3], eventIDs.prefix[:])
	binary.BigEndian.PutUint64(b[3:], eventIDs.n.Add(1)^eventIDs.key)
	return encodeID(&b)
}

func encodeID(b *[11]byte) string {
	var out [16]byte
	base64.URLEncoding.Encode(out[:], b[:])
	return string(out[:])
}

// peer is what every event of one connection repeats.
type peer struct {
	connID      string
	connectedAt time.Time
	domain      string // the Host the client connected to
	sourceIP    string
	userAgent   string
}

func newPeer(r *http.Request, connID string, now time.Time) peer {
	ip, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		ip = r.RemoteAddr
	}
	return peer{
		connID:      connID,
		connectedAt: now,
		domain:      r.Host,
		sourceIP:    ip,
		userAgent:   r.UserAgent(),
	}
}

// requestContext is the request context of one event.
func (p peer) requestContext(route, eventType string, now time.Time) events.APIGatewayWebsocketProxyRequestContext {
	reqID := eventID()
	return events.APIGatewayWebsocketProxyRequestContext{
		RouteKey:          route,
		EventType:         eventType,
		ExtendedRequestID: reqID,
		RequestID:         reqID,
		RequestTime:       now.UTC().Format(requestTimeLayout),
		RequestTimeEpoch:  now.UnixMilli(),
		MessageDirection:  "IN",
		Stage:             stage,
		ConnectedAt:       p.connectedAt.UnixMilli(),
		Identity: events.APIGatewayRequestIdentity{
			SourceIP:  p.sourceIP,
			UserAgent: p.userAgent,
		},
		DomainName:   p.domain,
		ConnectionID: p.connID,
		APIID:        apiID,
	}
}

// connectEvent is the $connect event of an upgrade request: its headers
// (Host and Origin included: the handler checks the origin against the
// host) and query parameters (the auth token), single- and multi-valued as
// API Gateway gives them.
func connectEvent(r *http.Request, p peer) events.APIGatewayWebsocketProxyRequest {
	headers := map[string]string{"Host": r.Host}
	multi := map[string][]string{"Host": {r.Host}}
	for k, vs := range r.Header {
		if len(vs) == 0 {
			continue
		}
		headers[k] = vs[len(vs)-1]
		multi[k] = append([]string(nil), vs...)
	}
	var query map[string]string
	var multiQuery map[string][]string
	if q := r.URL.Query(); len(q) > 0 {
		query = make(map[string]string, len(q))
		multiQuery = make(map[string][]string, len(q))
		for k, vs := range q {
			if len(vs) == 0 {
				continue
			}
			query[k] = vs[len(vs)-1]
			multiQuery[k] = vs
		}
	}
	return events.APIGatewayWebsocketProxyRequest{
		Headers:                         headers,
		MultiValueHeaders:               multi,
		QueryStringParameters:           query,
		MultiValueQueryStringParameters: multiQuery,
		RequestContext:                  p.requestContext(routeConnect, lambda.EventConnect, p.connectedAt),
	}
}

// messageEvent is the $default event of one text frame.
func messageEvent(p peer, body string, now time.Time) events.APIGatewayWebsocketProxyRequest {
	rc := p.requestContext(routeDefault, lambda.EventMessage, now)
	rc.MessageID = eventID()
	return events.APIGatewayWebsocketProxyRequest{
		RequestContext:  rc,
		Body:            body,
		IsBase64Encoded: false,
	}
}

// disconnectEvent is the $disconnect event, with the close code and reason
// as API Gateway reports them.
func disconnectEvent(p peer, code int, reason string, now time.Time) events.APIGatewayWebsocketProxyRequest {
	rc := p.requestContext(routeDisconnect, lambda.EventDisconnect, now)
	rc.DisconnectStatusCode = int64(code)
	if reason != "" {
		rc.DisconnectReason = &reason
	}
	return events.APIGatewayWebsocketProxyRequest{
		Headers:           map[string]string{"Host": p.domain},
		MultiValueHeaders: map[string][]string{"Host": {p.domain}},
		RequestContext:    rc,
	}
}
