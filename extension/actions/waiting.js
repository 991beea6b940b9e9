// What an action waits for in its page, for the agent to read while the
// command runs (command_result's "waiting"): the DOM runtime's auto-wait
// (runtime/waits.js) tells the worker, which posts it with the command's
// pending status (waiting_on, POST /query-result; background.js).
//
//   runtime → worker:  {gasoline: "waiting", text}  (no answer; "" once it waits no more)

/**
 * watchWaiting calls onWaiting(text) for each such message from a runtime
 * in tab tabId until the returned stop is called; without onWaiting it
 * watches nothing.
 */
export function watchWaiting(tabId, onWaiting) {
  if (!onWaiting) return () => {};
  const listener = (msg, sender) => {
    // A content script of this extension, in the action's tab.
    if (sender.id !== chrome.runtime.id || msg?.gasoline !== 'waiting' || sender.tab?.id !== tabId || typeof msg.text !== 'string') return false;
    onWaiting(msg.text);
    return false;
  };
  chrome.runtime.onMessage.addListener(listener);
  return () => chrome.runtime.onMessage.removeListener(listener);
}
