// The prompt window of the origin rule (origins/rule.js): an extension page
// the worker opens as a small popup window, naming the agent and the origin
// from its URL. Each button sends the user's answer to the worker, which
// holds the waiting command. Web pages cannot open, script or click it (it
// is not web-accessible), and the worker takes the answer from extension
// pages only. Stable hooks for tests: #once, #always, #deny, #origin, #agent.

const q = new URLSearchParams(location.search);
const id = q.get('id') || '';
document.getElementById('origin').textContent = q.get('origin') || '?';
document.getElementById('agent').textContent = q.get('agent') || 'An agent';

for (const choice of ['once', 'always', 'deny']) {
  document.getElementById(choice).addEventListener('click', async () => {
    const msg = document.getElementById('message');
    try {
      const r = await chrome.runtime.sendMessage({ type: 'origin_answer', id, choice });
      if (r?.ok) window.close();
      else msg.textContent = 'This request is no longer waiting (it timed out or was answered). You can close this window.';
    } catch (err) {
      msg.textContent = `Could not reach the extension: ${err.message}`;
    }
  });
}
