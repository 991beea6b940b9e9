// The popup's list of the origins the user always allowed agents on
// (origins/rule.js ALLOWED_KEY in chrome.storage.local), each with a
// Remove button. Stable hooks for tests: #origins-list[data-ready] once
// read, its li[data-origin], their button.remove.

import { ALLOWED_KEY } from './rule.js';

const list = document.getElementById('origins-list');
const none = document.getElementById('origins-none');

async function render() {
  const got = await chrome.storage.local.get(ALLOWED_KEY);
  const allowed = got?.[ALLOWED_KEY] && typeof got[ALLOWED_KEY] === 'object' ? got[ALLOWED_KEY] : {};
  list.replaceChildren();
  for (const origin of Object.keys(allowed).sort()) {
    const li = document.createElement('li');
    li.dataset.origin = origin;
    li.append(document.createTextNode(`${origin} `));
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'remove secondary';
    remove.textContent = 'Remove';
    remove.addEventListener('click', async () => {
      const now = (await chrome.storage.local.get(ALLOWED_KEY))?.[ALLOWED_KEY] ?? {};
      delete now[origin];
      await chrome.storage.local.set({ [ALLOWED_KEY]: now });
    });
    li.append(remove);
    list.append(li);
  }
  none.hidden = list.childElementCount > 0;
  list.dataset.ready = 'true';
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && ALLOWED_KEY in changes) render();
});
render();
