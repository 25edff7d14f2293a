module github.com/groundwire/groundwire

go 1.26
