// The culprit of click.html: a click handler that keeps the main thread
// busy for 300 ms.
function slowSave() {
  const end = performance.now() + 300;
  while (performance.now() < end) { /* busy */ }
  document.getElementById('out').textContent = 'saved';
}
document.getElementById('save').addEventListener('click', slowSave);
