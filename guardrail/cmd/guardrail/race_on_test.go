//go:build race && !js

package main

const raceEnabled = true
