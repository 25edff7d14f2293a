// Command kbload is the minimal function of testdata/minimal loading the
// embedded knowledge base first, as the bootstrap does: BenchmarkColdStart
// measures what the base adds to a cold start.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/groundwire/groundwire/kb"
)

func main() {
	if _, err := kb.Default(); err != nil {
		log.Fatal(err)
	}
	lambda.Start(func(ctx context.Context) error { return nil })
}
