// Fixture for drag and fill_form: a list sorted with pointer events (as
// sortable libraries do: pointerdown on an item, pointermove on the document
// past a threshold, pointerup ends), cards dragged with HTML5 drag and drop
// onto a zone that accepts them and one that does not, and a form whose
// state is shown as the page sees it after input and change events.
'use strict';
const log = (s) => { document.getElementById('log').textContent += s + '\n'; };

// Pointer-based sortable list.
const list = document.getElementById('sortable');
let dragging = null;
let startY = 0;
let moved = false;
list.addEventListener('pointerdown', (e) => {
  const li = e.target.closest('li');
  if (!li || e.button !== 0) return;
  dragging = li;
  startY = e.clientY;
  moved = false;
});
document.addEventListener('pointermove', (e) => {
  if (!dragging || !(e.buttons & 1)) return;
  if (!moved && Math.abs(e.clientY - startY) < 5) return; // a library's threshold
  moved = true;
  dragging.style.opacity = '0.5';
  const over = document.elementFromPoint(e.clientX, e.clientY)?.closest('#sortable li');
  if (!over || over === dragging) return;
  // The dragged item takes the place of the one under the pointer (SortableJS's swap).
  const below = dragging.compareDocumentPosition(over) & Node.DOCUMENT_POSITION_FOLLOWING;
  list.insertBefore(dragging, below ? over.nextSibling : over);
});
document.addEventListener('pointerup', () => {
  if (!dragging) return;
  dragging.style.opacity = '';
  if (moved) log('sorted ' + [...list.children].map((li) => li.textContent).join(','));
  dragging = null;
});

// HTML5 drag and drop.
for (const card of document.querySelectorAll('.card')) {
  card.addEventListener('dragstart', (e) => {
    e.dataTransfer.setData('text/plain', card.id);
    e.dataTransfer.effectAllowed = 'move';
  });
  card.addEventListener('dragend', () => log(`dragend ${card.id}`));
}
const zone = document.getElementById('dropzone');
zone.addEventListener('dragover', (e) => {
  e.preventDefault();
  e.dataTransfer.dropEffect = 'move';
});
zone.addEventListener('drop', (e) => {
  e.preventDefault();
  const id = e.dataTransfer.getData('text/plain');
  zone.appendChild(document.getElementById(id));
  log('dropped ' + id);
});

// The form's state as its listeners see it.
const state = () => {
  const v = (id) => document.getElementById(id);
  document.getElementById('state').textContent = JSON.stringify({
    name: v('fullname').value, pw: v('pw').value.length, bio: v('bio').value, color: v('color').value,
    tags: [...v('tags').selectedOptions].map((o) => o.value), news: v('news').checked,
    size: document.querySelector('input[name=size]:checked')?.value ?? '', notes: v('notes').textContent,
  });
};
document.querySelector('form').addEventListener('input', state);
document.querySelector('form').addEventListener('change', state);
state();

// A phone field its framework formats a microtask after each input, as
// fill_form's read-back must notice.
document.getElementById('phone').addEventListener('input', (e) => {
  queueMicrotask(() => {
    const d = e.target.value.replace(/\D/g, '');
    if (d.length === 10) e.target.value = `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`;
  });
});

// A postcode field an input mask upper-cases inside the input event itself,
// before the event returns: what fill reads back right after its events.
document.getElementById('postcode').addEventListener('input', (e) => {
  e.target.value = e.target.value.toUpperCase();
});

// A date field logs each input event it gets: a text the browser refuses
// must fail before any reaches the page.
document.getElementById('start').addEventListener('input', (e) => log('start input ' + e.target.value));
