//go:build !unix

package state

import "io/fs"

// noFollow is not available: Windows has no O_NOFOLLOW, and a user's
// profile directory (the default state dir's parent) is private by its ACL.
const noFollow = 0

// owner is not checked here: Windows controls access with ACLs, not uids.
func owner(fs.FileInfo) (int, bool) { return 0, false }

// looseMode is never true here: Go reports Windows files as 0666 or 0444
// whatever their ACL.
func looseMode(fs.FileMode, fs.FileMode) bool { return false }

func isSymlinkErr(string, error) bool { return false }
