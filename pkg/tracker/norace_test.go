//go:build !race

package tracker_test

const raceEnabled = false
