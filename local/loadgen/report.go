package main

import (
	"fmt"
	"io"
)

func (r *Report) print(w io.Writer) {
	fmt.Fprintf(w, "loadgen: %d connections; question %q = %d frames, %d bytes; %d CPUs, %s\n",
		r.Conns, r.Question, r.FramesPerAnswer, r.BytesPerAnswer, r.CPUs, r.GoVersion)
	fmt.Fprintf(w, "target: %s\n\n", r.Target)
	g := r.Groundwire
	e, b := r.Echo, r.EchoBatched
	if e == nil {
		e = &ServerReport{}
	}
	if b == nil {
		b = &ServerReport{}
	}
	row := func(name string, format string, ratio bool, f func(*ServerReport) float64) {
		fmt.Fprintf(w, "%-44s", name)
		for _, s := range []*ServerReport{g, e, b} {
			fmt.Fprintf(w, " %12s", fmt.Sprintf(format, f(s)))
		}
		if ratio {
			for _, s := range []*ServerReport{e, b} {
				if v := f(s); v > 0 {
					fmt.Fprintf(w, " %7.2f", f(g)/v)
				} else {
					fmt.Fprintf(w, " %7s", "")
				}
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-44s %12s %12s %12s %7s %7s\n", "", "groundwire", "echo", "echo-batch", "÷echo", "÷batch")
	row("connections opened", "%.0f", false, func(s *ServerReport) float64 { return float64(s.Connected) })
	row("connect p50 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.ConnectMs.P50 })
	row("connect p99 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.ConnectMs.P99 })
	row("server memory per idle conn, heap+stack (KB)", "%.1f", true, func(s *ServerReport) float64 { return s.MemPerConnBytes / 1024 })
	row("server memory per idle conn, Sys (KB)", "%.1f", true, func(s *ServerReport) float64 { return s.SysPerConnBytes / 1024 })
	row("server memory per idle conn, RSS (KB)", "%.1f", true, func(s *ServerReport) float64 { return s.RSSPerConnBytes / 1024 })
	row("  … idle again after the load (KB)", "%.1f", true, func(s *ServerReport) float64 { return s.RSSPerConnAfterLoad / 1024 })
	row(fmt.Sprintf("throughput, %d conns back to back (msg/s)", r.ThroughputConns), "%.0f", true, func(s *ServerReport) float64 { return s.Throughput.PerSecond })
	row("  latency p50 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.Throughput.LatencyMs.P50 })
	row("  server CPU per message (µs)", "%.0f", true, func(s *ServerReport) float64 { return s.Throughput.CPUPerMsgUs })
	row(fmt.Sprintf("at %.0f msg/s: completed per second", r.Rate), "%.0f", false, func(s *ServerReport) float64 { return s.AtRate.PerSecond })
	row("  time to first token p50 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.AtRate.TTFTMs.P50 })
	row("  time to first token p99 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.AtRate.TTFTMs.P99 })
	row("  message to response p50 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.AtRate.LatencyMs.P50 })
	row("  message to response p95 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.AtRate.LatencyMs.P95 })
	row("  message to response p99 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.AtRate.LatencyMs.P99 })
	row("  server CPU per message (µs)", "%.0f", false, func(s *ServerReport) float64 { return s.AtRate.CPUPerMsgUs })
	row("errors + timeouts (all phases)", "%.0f", false, func(s *ServerReport) float64 { return float64(errCount(s)) })
	if r.ThroughputRatio > 0 {
		fmt.Fprintf(w, "\ngroundwire's throughput is %.0f%% of the echo baseline's (%.0f%% of the batched one's).\n",
			100*r.ThroughputRatio, 100*r.ThroughputRatioBatched)
	}
	for _, s := range []*ServerReport{r.Groundwire, r.Echo, r.EchoBatched} {
		if s == nil {
			continue
		}
		for _, msg := range []string{s.FirstConnectErr, s.Throughput.FirstError, s.AtRate.FirstError} {
			if msg != "" {
				fmt.Fprintf(w, "%s: first error: %s\n", s.Name, msg)
			}
		}
		if s.AtRate.Skipped > 0 {
			fmt.Fprintf(w, "%s: %d messages not sent at the rate (every connection busy)\n", s.Name, s.AtRate.Skipped)
		}
	}
}

func errCount(s *ServerReport) int {
	return s.ConnectErrors + s.Throughput.Errors + s.Throughput.Timeouts + s.AtRate.Errors + s.AtRate.Timeouts
}
