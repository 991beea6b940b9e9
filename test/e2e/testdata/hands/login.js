// The login fixture: a submit shows a welcome line after 300 ms (a slow
// server), so wait_for has something to wait for.
document.getElementById('login').addEventListener('submit', (e) => {
  e.preventDefault();
  const email = document.getElementById('email').value;
  const password = document.getElementById('password').value;
  const remember = document.getElementById('remember').checked;
  const country = document.getElementById('country').value;
  const langs = Array.from(document.getElementById('langs').selectedOptions, (o) => o.value).join(',');
  setTimeout(() => {
    const w = document.getElementById('welcome');
    w.textContent = `Welcome, ${email} (password ${password.length} chars, remember ${remember}, country ${country}, languages ${langs})`;
    w.hidden = false;
  }, 300);
});
