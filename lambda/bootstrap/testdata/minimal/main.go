// Command minimal is the smallest aws-lambda-go function: the baseline of
// BenchmarkColdStart.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(ctx context.Context) error { return nil })
}
