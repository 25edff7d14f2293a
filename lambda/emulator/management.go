// Package emulator runs the deployable Lambda binary locally in the shape it
// has on AWS (SPEC §9): an [http.Handler] that serves the API Gateway
// Management API (`/@connections/{id}`) over the local server's WebSocket
// connections, and a [Forwarder] that turns each API Gateway event into an
// invocation of a Lambda runtime endpoint (the AWS Lambda Runtime Interface
// Emulator's `/2015-03-31/functions/function/invocations`).
//
// Wired together by the local server: frames from clients become events,
// the Forwarder invokes the bootstrap binary running under the Runtime
// Interface Emulator, and the binary (GROUNDWIRE_ENDPOINT pointing at the
// local server) answers through the Management API served here.
package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/groundwire/groundwire/lambda"
)

// Info describes a connection, as GetConnection returns it.
type Info struct {
	ConnectedAt  time.Time
	LastActiveAt time.Time
	SourceIP     string
	UserAgent    string
}

// Connections is what the local server offers the Management API: its live
// WebSocket connections by connection id. Implementations must be safe for
// concurrent use.
type Connections interface {
	// Send writes data as one text message to the connection. It returns
	// an error wrapping lambda.ErrGone when the connection is unknown or
	// closed.
	Send(id string, data []byte) error
	// Info returns what is known about a live connection; false when it is
	// unknown or closed.
	Info(id string) (Info, bool)
	// Close disconnects the connection. It returns an error wrapping
	// lambda.ErrGone when the connection is unknown or closed.
	Close(id string) error
}

// MaxPostBytes is API Gateway's limit on PostToConnection data (128 KB).
const MaxPostBytes = 128 * 1024

// ManagementOptions configure the Management API handler.
type ManagementOptions struct {
	// RequireSignature refuses (403) requests without a well-formed AWS
	// Signature Version 4 Authorization header. The signature itself is
	// never checked: any credentials are accepted.
	RequireSignature bool
}

// NewManagementAPI returns an http.Handler serving the API Gateway
// Management API over conns: POST /@connections/{id} sends the body, GET
// returns the connection's info, DELETE disconnects it; an unknown or closed
// connection answers 410 GoneException, as API Gateway does. Any path prefix
// before /@connections/ (a stage, like /prod) is accepted, so a client can
// use http://host:port or http://host:port/stage as its endpoint.
func NewManagementAPI(conns Connections, opts ManagementOptions) http.Handler {
	return &management{conns: conns, opts: opts}
}

type management struct {
	conns Connections
	opts  ManagementOptions
}

// sigV4 matches the shape of an AWS Signature Version 4 Authorization header.
var sigV4 = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=[^/\s]+/\d{8}/[^/\s]+/[^/\s]+/aws4_request, ?SignedHeaders=[a-z0-9;-]+, ?Signature=[0-9a-f]{64}$`)

// WellFormedSigV4 reports whether an Authorization header has the shape of
// an AWS Signature Version 4 header (it does not check the signature).
func WellFormedSigV4(auth string) bool { return sigV4.MatchString(auth) }

func (m *management) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if m.opts.RequireSignature && !WellFormedSigV4(r.Header.Get("Authorization")) {
		writeError(w, http.StatusForbidden, "ForbiddenException", "Missing or malformed Signature Version 4 Authorization header.")
		return
	}
	p := r.URL.EscapedPath()
	i := strings.Index(p, "/@connections/")
	if i < 0 {
		writeError(w, http.StatusNotFound, "NotFoundException", "Not found.")
		return
	}
	id, err := url.PathUnescape(p[i+len("/@connections/"):])
	if err != nil || id == "" || strings.Contains(id, "/") {
		writeError(w, http.StatusBadRequest, "BadRequestException", "Invalid connection id.")
		return
	}
	switch r.Method {
	case http.MethodPost:
		data, err := io.ReadAll(io.LimitReader(r.Body, MaxPostBytes+1))
		if err != nil {
			writeError(w, http.StatusBadRequest, "BadRequestException", "Could not read the body.")
			return
		}
		if len(data) > MaxPostBytes {
			writeError(w, http.StatusRequestEntityTooLarge, "PayloadTooLargeException", fmt.Sprintf("Data over %d bytes.", MaxPostBytes))
			return
		}
		if err := m.conns.Send(id, data); err != nil {
			m.fail(w, err)
			return
		}
		w.WriteHeader(http.StatusOK)
	case http.MethodGet:
		info, ok := m.conns.Info(id)
		if !ok {
			gone(w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(connectionInfo{
			ConnectedAt:  info.ConnectedAt.UTC().Format(time.RFC3339Nano),
			LastActiveAt: info.LastActiveAt.UTC().Format(time.RFC3339Nano),
			Identity:     identity{SourceIP: info.SourceIP, UserAgent: info.UserAgent},
		})
	case http.MethodDelete:
		if err := m.conns.Close(id); err != nil {
			m.fail(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "POST, GET, DELETE")
		writeError(w, http.StatusMethodNotAllowed, "BadRequestException", "Method not allowed.")
	}
}

// connectionInfo is GetConnection's response body.
type connectionInfo struct {
	ConnectedAt  string   `json:"connectedAt"`
	Identity     identity `json:"identity"`
	LastActiveAt string   `json:"lastActiveAt"`
}

type identity struct {
	SourceIP  string `json:"sourceIp"`
	UserAgent string `json:"userAgent"`
}

func (m *management) fail(w http.ResponseWriter, err error) {
	if errors.Is(err, lambda.ErrGone) {
		gone(w)
		return
	}
	writeError(w, http.StatusInternalServerError, "InternalServerErrorException", err.Error())
}

func gone(w http.ResponseWriter) {
	writeError(w, http.StatusGone, "GoneException", "The connection is gone.")
}

// writeError answers like API Gateway: the error type in the
// x-amzn-ErrorType header and the JSON body, which the AWS SDKs decode into
// their typed exceptions.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", typ)
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
}
