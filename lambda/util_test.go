package lambda_test

import "github.com/groundwire/groundwire/lambda/lambdatest"

func deltas(fs []lambdatest.Frame, id string) string { return lambdatest.Deltas(fs, id) }
