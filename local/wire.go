package main

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/web"
)

// wire builds the server's dependencies from the configuration: the
// knowledge base, the model, the in-memory store and the page.
func wire(cfg config, log *slog.Logger, getenv func(string) string) (deps, error) {
	d := deps{Logger: log, Version: version(), Store: lambda.NewMemStore()}

	if cfg.KBDir == "" {
		base, err := kb.Default()
		if err != nil {
			return d, fmt.Errorf("knowledge base: %w", err)
		}
		d.KB = "embedded"
		d.Retriever = base
		d.Snippets = base.Len
	} else {
		r, err := kb.NewReloader(cfg.KBDir)
		if err != nil {
			return d, fmt.Errorf("knowledge base: %w", err)
		}
		logProblems(log, r.Base())
		d.KB = cfg.KBDir
		d.Retriever = r
		d.Snippets = func() int { return r.Base().Len() }
		d.Reloader = r
	}

	switch cfg.Model {
	case "mock":
		d.Model = lambda.NewMock(
			lambda.MockDelay(cfg.TokenDelay.Lo, cfg.TokenDelay.Hi),
			lambda.MockHallucinationRate(cfg.Hallucination),
			lambda.MockSeed(cfg.Seed),
		)
		d.ModelName = "mock"
	case "openai":
		oc := lambda.OpenAIConfig{
			BaseURL: getenv("OPENAI_BASE_URL"),
			APIKey:  getenv("OPENAI_API_KEY"),
			Model:   getenv("OPENAI_MODEL"),
		}
		if oc.Model == "" {
			return d, errors.New("-model openai needs OPENAI_MODEL (and usually OPENAI_BASE_URL and OPENAI_API_KEY)")
		}
		m, err := lambda.NewOpenAI(oc)
		if err != nil {
			return d, fmt.Errorf("model: %w", err)
		}
		d.Model = m
		d.ModelName = "openai " + oc.Model
	}

	d.Page = web.Handler(web.Options{Logger: log.With("component", "web"), DisableWASM: cfg.NoWASM, ConnectOrigins: allowedOrigins(cfg.Origins)})
	return d, nil
}

func logProblems(log *slog.Logger, b *kb.Base) {
	for _, p := range b.Problems() {
		log.Warn("knowledge base: file left out", "err", p.Error())
	}
}

// version is the module version of the binary, with its VCS revision when
// it was recorded.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
