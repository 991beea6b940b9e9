package e2e

import (
	"testing"
	"time"
)

// TestHandsDialogBlankFrames: the dialog wrappers (actions/dialogs.js) and
// the capture hooks (capture/main/) come in one MAIN-world entry
// (scripts/bundle), so a frame without a URL of its own (about:blank,
// about:srcdoc, one a script makes) has both or neither: here both, as the
// registration's matchOriginAsFallback (extension/capture/declared.json)
// brings them by the parent's origin.
func TestHandsDialogBlankFrames(t *testing.T) {
	e := ready(t)
	e.open("/hands/blank-frames.html")
	s := e.pageSession(e.site.URL + "/hands/blank-frames.html")
	const probe = `[...document.querySelectorAll('iframe')].map((f) => {
		const w = f.contentWindow;
		const native = (fn) => /\[native code\]/.test(Function.prototype.toString.call(fn));
		return f.id + ' ' + w.location.href + ' alert:' + (native(w.alert) ? 'native' : 'wrapped') + ' name:' + w.alert.name +
			' fetch:' + (native(w.fetch) ? 'native' : 'wrapped');
	}).join('\n')`
	var got string
	want := "empty about:blank alert:wrapped name:alert fetch:wrapped\n" +
		"srcdoc about:srcdoc alert:wrapped name:alert fetch:wrapped\n" +
		"made about:blank alert:wrapped name:alert fetch:wrapped"
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err := s.Evaluate(e.ctx, probe, &got); err != nil {
			t.Fatal(err)
		}
		if got == want {
			return
		}
	}
	t.Errorf("the page's blank frames:\n%s\nwant\n%s", got, want)
}
