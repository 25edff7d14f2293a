package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
)

// newLogger logs to w: text on a terminal, JSON otherwise (-log-format
// auto). What the server logs never holds a token or a phone number:
// message texts are not logged, anything user-derived goes through
// lambda.Mask, and URLs are not logged (they may carry ?token=).
func newLogger(cfg config, w io.Writer) *slog.Logger {
	level, _ := parseLevel(cfg.LogLevel)
	opts := &slog.HandlerOptions{Level: level}
	text := cfg.LogFormat == "text" || cfg.LogFormat == "auto" && isTerminal(w)
	if text {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("-log-level must be debug, info, warn or error, not %q", s)
	}
	return l, nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
