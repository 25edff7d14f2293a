package lambdatest

import (
	"strings"
	"testing"

	"github.com/groundwire/groundwire/lambda"
)

// frames parses short forms ("stream_end:m1:cancelled", see Frame.String).
func frames(s string) []Frame {
	var out []Frame
	for _, w := range strings.Fields(s) {
		p := strings.SplitN(w, ":", 3)
		f := Frame{Type: p[0]}
		if len(p) > 1 {
			f.ID = p[1]
		}
		if len(p) > 2 {
			switch f.Type {
			case lambda.TypeStreamEnd:
				f.Reason = p[2]
			case lambda.TypeResponse:
				f.Status = p[2]
			case lambda.TypeError:
				f.Code = p[2]
			case lambda.TypeActionSuggestion:
				f.Action = p[2]
			}
		}
		out = append(out, f)
	}
	return out
}

func TestCheckFlows(t *testing.T) {
	good := []string{
		"",
		"sources:m1 stream:m1 stream:m1 stream_end:m1:done response:m1:verified action_suggestion:m1:send_sms",
		"sources:m1 stream_end:m1:blocked response:m1:blocked sources:m2 stream:m2 stream_end:m2:cancelled",
		"sources:m1 stream:m1 stream_end:m1:cancelled stream_end:m2:cancelled sources:m3 stream_end:m3:done response:m3:verified",
		"error:m1:internal sources:m2 error:m2:internal",
		"sources:m1 error:m9:rate_limited action_executed: stream:m1 error::bad_request stream_end:m1:done response:m1:verified",
	}
	for _, s := range good {
		if err := CheckFlows(frames(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	bad := []string{
		"sources:m1 stream:m1 stream_end:m1:cancelled stream:m1",                                      // stream after stream_end cancelled
		"sources:m1 stream:m1 sources:m2 stream_end:m1:cancelled",                                     // m2 before m1's end
		"sources:m1 stream_end:m1:cancelled stream_end:m1:cancelled",                                  // two ends
		"sources:m1 stream_end:m1:done stream_end:m1:cancelled",                                       // two ends
		"sources:m1 stream_end:m1:cancelled response:m1:verified",                                     // response after cancel
		"sources:m1 response:m1:verified",                                                             // no stream_end
		"sources:m1 stream_end:m1:done response:m1:verified sources:m2 action_suggestion:m1:send_sms", // after the end
		"stream:m1", // no sources
		"sources:m1 stream_end:m1:done error:m1:internal", // error after the end
		"sources:m1 sources:m1",
	}
	for _, s := range bad {
		if err := CheckFlows(frames(s)); err == nil {
			t.Errorf("%s: no violation found", s)
		}
	}
}
