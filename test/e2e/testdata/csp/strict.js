// The strict-CSP fixture's own script (allowed: 'self'). It records whether
// the page may eval, keeps a page global that only the MAIN world sees, and
// greets on click.
window.strictApp = { version: 3 };
let evalState;
try {
  eval('1');
  evalState = 'eval allowed';
} catch (e) {
  evalState = `eval blocked (${e.name})`;
}
document.getElementById('evalstate').textContent = evalState;
document.getElementById('greet').addEventListener('click', () => {
  document.getElementById('out').textContent = `Hello, ${document.getElementById('name').value}`;
});
