module github.com/groundwire/groundwire

go 1.26

require (
	github.com/aws/aws-lambda-go v1.55.1
	github.com/chromedp/chromedp v0.23.0
	github.com/gorilla/websocket v1.5.3
	github.com/kljensen/snowball v0.10.0
	github.com/openai/openai-go/v3 v3.71.1
	github.com/rogpeppe/go-internal v1.14.1
	go.uber.org/goleak v1.3.0
	golang.org/x/time v0.15.0
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/tidwall/gjson v1.19.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
