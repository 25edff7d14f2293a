module github.com/groundwire/groundwire

go 1.26

require github.com/kljensen/snowball v0.10.0
