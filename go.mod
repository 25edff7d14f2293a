module github.com/groundwire/groundwire

go 1.26.0

require (
	github.com/aws/aws-lambda-go v1.55.1
	github.com/kljensen/snowball v0.10.0
	go.uber.org/goleak v1.3.0
	golang.org/x/time v0.16.0
)
