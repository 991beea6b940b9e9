// The widgets fixture: every event worth checking is appended to #log as a
// line, so a test reads it back with get_text (which works on strict-CSP
// pages too).
const log = (s) => {
  document.getElementById('log').textContent += s + '\n';
};
const $ = (id) => document.getElementById(id);

$('accept').addEventListener('click', () => $('banner').remove());
$('covered').addEventListener('click', () => log('covered clicked'));
$('start').addEventListener('click', () => {
  log('timers started');
  setTimeout(() => {
    const b = document.createElement('button');
    b.id = 'slow';
    b.textContent = 'Slow button';
    b.addEventListener('click', () => log('slow clicked'));
    $('content').insertBefore(b, $('later'));
  }, 700);
  setTimeout(() => {
    $('later').disabled = false;
  }, 700);
});
$('later').addEventListener('click', () => log('later clicked'));
// The test removes Doomed (through CDP) while a click waits for it to be
// enabled; a timer would race a busy machine.
window.doom = () => $('doomed').remove();
document.querySelectorAll('li button').forEach((b) => b.addEventListener('click', () => log('delete ' + b.parentNode.firstChild.textContent.trim())));
$('vanish').addEventListener('click', () => {
  $('vanish').remove();
  log('vanished');
});
$('keys').addEventListener('keydown', (e) => {
  const m = ['ctrlKey', 'shiftKey', 'altKey', 'metaKey'].filter((k) => e[k]).map((k) => k.replace('Key', '')).join('+');
  log(`keydown ${e.key} ${e.code}${m ? ' ' + m : ''}`);
});
$('keys').addEventListener('input', () => log('input ' + $('keys').value));
$('editor').addEventListener('input', () => log('editor ' + $('editor').textContent));
$('dbl').addEventListener('click', (e) => log('click detail ' + e.detail));
$('dbl').addEventListener('dblclick', () => log('dblclick'));
$('dbl').addEventListener('contextmenu', (e) => {
  e.preventDefault();
  log('contextmenu');
});
$('dbl').addEventListener('mousedown', (e) => log(`mousedown button ${e.button}${e.shiftKey ? ' shift' : ''}`));
$('hover').addEventListener('mouseenter', () => {
  $('tip').classList.add('shown');
  log('hover entered');
});
$('confirm').addEventListener('click', () => log('confirm answered ' + confirm('Really?')));
$('break').addEventListener('click', () => {
  fetch('/hands/missing-on-purpose').catch(() => {});
  throw new Error('broken on purpose');
});
$('far').addEventListener('click', () => log('far clicked'));
customElements.define('fancy-button', class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    const b = document.createElement('button');
    b.textContent = 'Shadow click';
    b.addEventListener('click', () => log('shadow clicked'));
    root.append(b);
  }
});
