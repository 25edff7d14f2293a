// Command bootstrap is groundwire's deployable AWS Lambda function: the
// handlers of package lambda behind an API Gateway WebSocket API ($connect,
// $default, $disconnect), replying through the API Gateway Management API,
// with state in DynamoDB and the knowledge base embedded.
//
// Build it for the provided.al2023 runtime (arm64 or amd64):
//
//	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -tags lambda.norpc -o bootstrap ./lambda/bootstrap
//
// Configuration is read from the environment; see config.go and the README
// ("Deploy on AWS"); secrets may be SSM parameters instead (secrets.go).
// Logs are JSON lines on standard output (CloudWatch).
//
// With -create-table it creates its DynamoDB table (GROUNDWIRE_TABLE, at
// AWS_ENDPOINT_URL_DYNAMODB) unless the table exists, enables TTL, and exits:
// the local runs need no AWS CLI.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	awslambda "github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/apigw"
	"github.com/groundwire/groundwire/lambda/dynamostore"
)

func main() {
	createTable := flag.Bool("create-table", false, "create the DynamoDB table GROUNDWIRE_TABLE unless it exists, enable its TTL, and exit (local runs)")
	flag.Parse()
	if !*createTable {
		// The embedded knowledge base loads (once; newHandler takes it)
		// while the configuration, the AWS SDK and any SSM secrets are read.
		go kb.Default() // its error, if any, newHandler reports
	}
	cfg, err := loadConfig(os.Getenv)
	logger := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if err != nil {
		logger.Error("configuration", "err", err.Error())
		os.Exit(1)
	}
	ctx := context.Background()
	awsCfg, err := loadAWS(ctx, cfg)
	if err != nil {
		logger.Error("aws configuration", "err", err.Error())
		os.Exit(1)
	}
	if *createTable {
		if err := ensureTable(ctx, cfg, awsCfg, logger); err != nil {
			logger.Error("create table", "err", err.Error())
			os.Exit(1)
		}
		return
	}
	// Secrets given as SSM parameters are read once, here, at cold start.
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	getenv, err := resolveSecrets(sctx, os.Getenv, func() parameterGetter { return newSSMClient(awsCfg, os.Getenv) })
	cancel()
	if err == nil {
		cfg, err = loadConfig(getenv)
	}
	if err != nil {
		logger.Error("secrets", "err", err.Error())
		os.Exit(1)
	}
	if set := openAIIgnored(cfg, getenv); len(set) > 0 {
		logger.Warn("GROUNDWIRE_MODEL is mock: OPENAI_* variables ignored", "ignored", set)
	}
	h, err := newHandler(cfg, awsCfg, logger)
	if err != nil {
		logger.Error("handler", "err", err.Error())
		os.Exit(1)
	}
	awslambda.Start(apigw.Wrap(h.Handle))
}

// ensureTable creates the table the function uses (same shape as the
// template's) unless it exists and enables its TTL: what
// `bootstrap -create-table` does, with the function's own environment
// (GROUNDWIRE_TABLE, AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB).
func ensureTable(ctx context.Context, cfg config, awsCfg aws.Config, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	db := dynamodb.NewFromConfig(awsCfg)
	if err := dynamostore.CreateTable(ctx, db, cfg.Table); err != nil {
		return err
	}
	err := dynamostore.EnableTTL(ctx, db, cfg.Table)
	if errors.Is(err, dynamostore.ErrTTLUnsupported) {
		logger.Warn("table ready without TTL: this DynamoDB cannot expire items (fine for dynalite)", "table", cfg.Table)
		return nil
	}
	if err != nil {
		return err
	}
	logger.Info("table ready", "table", cfg.Table, "ttl", dynamostore.TTLAttribute)
	return nil
}

// loadAWS loads the AWS configuration from the environment (the Lambda
// role's credentials, AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB for local runs)
// with bounded retries and timeouts: a DynamoDB that is down must fail a
// call quickly, not hang a stream.
func loadAWS(ctx context.Context, cfg config) (aws.Config, error) {
	return awsconfig.LoadDefaultConfig(ctx,
		awsconfig.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = cfg.AWSMaxRetries
				o.MaxBackoff = 200 * time.Millisecond
			})
		}),
		awsconfig.WithHTTPClient(awshttp.NewBuildableClient().WithTimeout(cfg.AWSTimeout).WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConnsPerHost = 64
		})),
	)
}

// newHandler wires the handler: embedded knowledge base, mock or
// OpenAI-compatible model,
// DynamoDB store, Management API sender.
func newHandler(cfg config, awsCfg aws.Config, logger *slog.Logger) (*lambda.Handler, error) {
	base, err := kb.Default()
	if err != nil {
		return nil, fmt.Errorf("knowledge base: %w", err)
	}
	store := dynamostore.New(dynamodb.NewFromConfig(awsCfg), cfg.Table, dynamostore.Options{Timeout: cfg.AWSTimeout})
	sender := apigw.New(awsCfg, apigw.Options{Endpoint: cfg.Endpoint, Timeout: cfg.AWSTimeout})
	var model lambda.Model = lambda.NewMock(
		lambda.MockSeed(cfg.MockSeed),
		lambda.MockDelay(cfg.TokenDelayMin, cfg.TokenDelayMax),
		lambda.MockHallucinationRate(cfg.HallucinationRate),
	)
	if cfg.Model == "openai" {
		if model, err = lambda.NewOpenAI(cfg.OpenAI); err != nil {
			return nil, fmt.Errorf("openai model: %w", err)
		}
	}
	var retriever lambda.Retriever = base
	if cfg.Embeddings.URL != "" {
		// Only with embeddings on: the snippets' vectors, from /tmp when
		// this environment embedded them before, else from the endpoint.
		dr, err := lambda.NewDenseRetriever(cfg.Embeddings, logger.With("component", "embeddings"))
		if err != nil {
			return nil, fmt.Errorf("embeddings: %w", err)
		}
		dr.Load(context.Background(), base) // a failure is logged; lexical search goes on
		retriever = dr
	}
	return lambda.New(lambda.Config{
		Retriever:            retriever,
		Model:                model,
		Store:                store,
		Sender:               sender,
		Mode:                 cfg.Mode,
		Policy:               cfg.Policy,
		Limits:               lambda.Limits{NoRateLimit: cfg.NoRateLimit},
		AuthToken:            cfg.AuthToken,
		AuthSecret:           []byte(cfg.AuthSecret),
		AllowedOrigins:       cfg.Origins,
		CancelCheckInterval:  cfg.CancelCheckInterval,
		CancelHandoffTimeout: cfg.CancelHandoffTimeout,
		CoalesceInterval:     cfg.CoalesceInterval,
		DeadlineMargin:       cfg.DeadlineMargin,
		Logger:               logger,
		LogText:              cfg.LogText,
	})
}
