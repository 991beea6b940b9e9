package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/upload"
)

// uploadActions put files from the user's disk in a page's file input.
func uploadActions() []action { return []action{uploadAction()} }

// uploadAction declares upload: the daemon reads the files (only under the
// directories the user allowed, internal/upload) and the extension sets
// them on the input the target names, as a DOM action with effects.
func uploadAction() action {
	a := dom[uploadArgs]("upload", "into a file input", false).notReplayed("add the upload to the test by hand (setInputFiles)")
	a.page.File = pageVerbDir + "upload.js"
	a.sent, a.parse = reflect.TypeFor[uploadParams](), parseAs[uploadArgs]
	a.run = func(t *Tools, ctx context.Context, act *action, client string, in *arguments) (any, error) {
		args, err := decodeArgs[uploadArgs](act, in)
		if err != nil {
			return nil, err
		}
		files, err := t.d.Uploads.ReadAll(args.Paths)
		if err != nil {
			return nil, uploadError(t.d.Uploads, err)
		}
		return t.submitBrowser(ctx, act, client, in, uploadParams{targetArgs: args.targetArgs, Files: files, settleArgs: args.settleArgs})
	}
	return a
}

type uploadArgs struct {
	targetArgs `list:"target"`
	Paths      []string `json:"paths" required:"true" desc:"absolute, under a directory the user allowed"`
	settleArgs `list:"-"`
}

func (a uploadArgs) check() error {
	return a.checkTarget("upload", false, false)
}

// uploadParams are what the extension gets: the target, the files, and
// how long to follow what setting them started.
type uploadParams struct {
	targetArgs
	Files []upload.File `json:"files" required:"true"`
	settleArgs
}

// uploadError turns a refused read into what the agent can act on.
func uploadError(dirs *upload.Dirs, err error) error {
	allowed := "the directories the user allowed"
	if d := dirs.Dirs(); len(d) > 0 {
		b, _ := json.Marshal(d)
		allowed = string(b)
	}
	switch {
	case errors.Is(err, upload.ErrNoDirs):
		return mcp.Errorf("upload_not_allowed",
			"ask the user to allow a directory: stop the daemon (gasoline daemon stop) and start it with gasoline daemon start --upload-dir DIR (repeatable), "+
				"or set "+upload.EnvDirs+"=DIR in the MCP client's env for gasoline-mcp; then put the files there",
			"uploads are off: the user allowed no directory to upload from")
	case errors.Is(err, upload.ErrOutside):
		return mcp.Errorf("upload_not_allowed", "use files under "+allowed+", or ask the user to allow the file's directory with --upload-dir", "%v", err)
	case errors.Is(err, upload.ErrNotAbsolute):
		return mcp.Errorf("invalid_arguments", "pass absolute paths under "+allowed, "%v", err)
	case errors.Is(err, fs.ErrNotExist):
		return mcp.Errorf("not_found", "check the path; files may be uploaded from "+allowed, "%v", err)
	case errors.Is(err, upload.ErrTooLarge), errors.Is(err, upload.ErrCount):
		return mcp.Errorf("invalid_arguments", "upload at most 4 files of 10 MB each, 20 MB in all", "%v", err)
	case errors.Is(err, upload.ErrNotFile):
		return mcp.Errorf("invalid_arguments", "pass regular files, not directories or devices", "%v", err)
	}
	return mcp.Errorf("upload_failed", "check that the daemon can read the file", "%v", err)
}
