package tracker

import "time"

// RealClock returns the Clock of the wall clock: time.Now and time.AfterFunc.
func RealClock() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
