module github.com/groundwire/groundwire

go 1.26

require github.com/rogpeppe/go-internal v1.14.1

require (
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
