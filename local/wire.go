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
		d.Retriever = kbRetriever{base}
		d.Snippets = base.Len
	} else {
		r, err := kb.NewReloader(cfg.KBDir)
		if err != nil {
			return d, fmt.Errorf("knowledge base: %w", err)
		}
		logProblems(log, r.Base())
		d.KB = cfg.KBDir
		d.Retriever = kbRetriever{r}
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
		return d, errors.New("-model openai is not available in this build: package lambda has no " +
			"OpenAI-compatible model yet (it would read OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL); use -model mock")
	}

	d.Page = web.Handler(web.Options{Logger: log.With("component", "web"), DisableWASM: cfg.NoWASM})
	return d, nil
}

func logProblems(log *slog.Logger, b *kb.Base) {
	for _, p := range b.Problems() {
		log.Warn("knowledge base: file left out", "err", p.Error())
	}
}

// searcher is a knowledge base: a *kb.Base, or a *kb.Reloader.
type searcher interface {
	Search(query string, k int) []kb.Hit
}

// kbRetriever adapts the knowledge base to the handler's Retriever.
type kbRetriever struct{ b searcher }

func (r kbRetriever) Search(query string, k int) []lambda.Hit {
	hits := r.b.Search(query, k)
	out := make([]lambda.Hit, 0, len(hits))
	for _, h := range hits {
		s := h.Snippet
		out = append(out, lambda.Hit{
			Snippet: &lambda.Snippet{File: s.File, Line: s.Line, Text: s.Text, Source: s.Source},
			Score:   h.Score,
		})
	}
	return out
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
