// The custom select of listbox.html: a click on the button opens or closes
// the list; a click on an enabled option marks it selected, shows its
// label on the button, closes the list and says which was picked.
const button = document.getElementById('fruit');
const list = document.getElementById('fruit-list');
const options = [...list.querySelectorAll('[role=option]')];

function show(open) {
  list.hidden = !open;
  button.setAttribute('aria-expanded', String(open));
}

button.addEventListener('click', () => show(list.hidden));
for (const o of options) {
  o.addEventListener('click', () => {
    if (o.getAttribute('aria-disabled') === 'true') return;
    for (const p of options) p.setAttribute('aria-selected', String(p === o));
    button.textContent = o.textContent;
    show(false);
    document.getElementById('picked').textContent = 'Picked: ' + o.dataset.value;
  });
}
