//go:build race

package main

// raceEnabled builds the bridge under test with -race too.
const raceEnabled = true
