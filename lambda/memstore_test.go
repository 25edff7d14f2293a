package lambda_test

import (
	"testing"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/storetest"
)

func TestMemStoreConformance(t *testing.T) {
	storetest.StoreConformance(t, func(t *testing.T) lambda.Store { return lambda.NewMemStore() })
}
