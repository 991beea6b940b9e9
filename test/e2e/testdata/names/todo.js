// The page logs what the agent did to it, so the test reads the effect.
const log = (s) => { document.getElementById('log').textContent += s + '\n'; };
for (const box of document.querySelectorAll('.toggle')) {
  box.addEventListener('change', () => {
    const li = box.closest('li');
    li.classList.toggle('completed', box.checked);
    log(`${li.querySelector('label').textContent} ${box.checked ? 'done' : 'open'}`);
  });
}
document.getElementById('save').addEventListener('click', () => log('saved'));
// Start ticking keeps the page busy (a DOM change every 100 ms) and adds a
// button 2.5 s later: an action waiting for it must not give up as if idle.
document.getElementById('tick').addEventListener('click', () => {
  let n = 0;
  const clock = document.getElementById('clock');
  const timer = setInterval(() => { clock.textContent = String(++n); }, 100);
  setTimeout(() => {
    const b = document.createElement('button');
    b.id = 'late';
    b.textContent = 'Late button';
    b.addEventListener('click', () => { clearInterval(timer); log('late clicked'); });
    document.getElementById('later-slot').append(b);
  }, 2500);
});
// Load later asks the server for data that takes 2.5 s, with nothing else
// moving meanwhile, then adds a button: only the request in flight says the
// page is busy.
document.getElementById('load').addEventListener('click', async () => {
  const r = await fetch('/names/slow');
  const b = document.createElement('button');
  b.id = 'fetched';
  b.textContent = await r.text();
  b.addEventListener('click', () => log('fetched clicked'));
  document.getElementById('later-slot').append(b);
});
