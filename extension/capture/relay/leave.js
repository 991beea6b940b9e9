// Leaving the page: no timer runs in a page that is gone, so a record made
// as it is left (record.js's last action at pagehide, what the page script
// sends then) would wait behind pacing or a batch in flight for ever. From
// pagehide (this listener comes before record.js's and the MAIN-world
// capture's: this script is injected first) pacing is off and every record
// goes at once, beside the batches in flight but for those of their
// requests (check.js takeBatch), which follow them as usual if the page
// lives on.
//
// A page back from the back/forward cache is paced again, and what was
// in flight as it entered the cache is sent again: Chrome closed those
// messages' channels, so their answers never come (nothing would be
// sent after them, and a flush would wait for them for ever). The worker
// acknowledges a batch it stored already without storing it twice (its
// id, under the frame the document had while active: capture/worker.js);
// the answers and retries of the sends before are ignored.
//
// Only the browser's own pagehide and pageshow count: the page can
// dispatch its own (untrusted) to turn pacing off or have every batch
// in flight sent again, over and over.
//
// A link the agent followed as the page was left is not followed again:
// a page back from the cache answers the next flush as not navigating.
//
// The pagehide listener is added twice. Firefox ends the first script of
// a page that runs after a navigation the browser itself started (the
// address bar, tabs.update: the agent's navigate) began, until the next
// page arrives ("Script terminated by timeout" in its log; the pref
// dom.ipc.cancel_content_js_when_navigating, meant for a page stuck in a
// loop). On a quiet page that first script is this listener, at its first
// call, before it changed anything: the second one, which Firefox lets
// run, does the leaving. Where the first ran, the second finds nothing
// left to send (leave and send are idempotent). It comes before
// record.js's and the MAIN-world capture's listeners all the same.
import { forgetNavigation } from './flush.js';
import { dead, leave, reshown, send } from './forward.js';

/** watchLeaving follows the browser's pagehide and pageshow (above). */
export function watchLeaving() {
  const leaving = (e) => {
    if (!e.isTrusted) return;
    leave(true);
    send();
  };
  addEventListener('pagehide', leaving, true);
  // A second function: the same one would be added only once.
  addEventListener('pagehide', (e) => leaving(e), true);
  addEventListener('pageshow', (e) => {
    if (!e.isTrusted) return;
    leave(false);
    if (!e.persisted || dead) return;
    forgetNavigation();
    reshown();
  }, true);
}
