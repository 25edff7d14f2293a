package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
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

	if cfg.Embeddings != "" {
		if err := wireDense(&d, cfg, log, getenv); err != nil {
			return d, err
		}
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

// wireDense puts dense retrieval (-embeddings) in front of the knowledge
// base: the snippets are embedded now (a failing endpoint leaves lexical
// search, with a warning) and again at each reload.
func wireDense(d *deps, cfg config, log *slog.Logger, getenv func(string) string) error {
	cache := cfg.EmbedCache
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			log.Warn("embeddings: no user cache directory; the vectors are not kept between runs", "err", err.Error())
		} else {
			cache = filepath.Join(dir, "groundwire", "embeddings")
		}
	}
	dr, err := lambda.NewDenseRetriever(lambda.EmbeddingsConfig{
		URL:      cfg.Embeddings,
		Model:    cfg.EmbedModel,
		APIKey:   lambda.EmbeddingsKey(cfg.Embeddings, getenv("GROUNDWIRE_EMBEDDINGS_API_KEY"), getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL")),
		CacheDir: cache,
		Timeout:  cfg.EmbedTimeout,
		Weight:   cfg.EmbedWeight,
	}, log.With("component", "embeddings"))
	if err != nil {
		return fmt.Errorf("embeddings: %w", err)
	}
	base := func() *kb.Base { return d.Retriever.(*kb.Base) }
	if d.Reloader != nil {
		base = d.Reloader.Base
	}
	dr.Load(context.Background(), base()) // a failure is logged; lexical search goes on
	d.Retriever, d.Dense = dr, dr
	return nil
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
