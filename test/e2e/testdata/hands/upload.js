// The upload fixture: every change of a file input lists the files it
// holds in #out, with their type, size and text as FileReader reads it.
const out = document.getElementById('out');
const read = (f) => new Promise((resolve, reject) => {
  const r = new FileReader();
  r.onload = () => resolve(r.result);
  r.onerror = () => reject(r.error);
  r.readAsText(f);
});
for (const input of document.querySelectorAll('input[type=file]')) {
  input.addEventListener('change', async () => {
    const lines = [];
    for (const f of input.files) lines.push(`${input.id}: ${f.name} ${f.type || '-'} ${f.size} ${JSON.stringify(await read(f))}`);
    out.textContent += lines.join('\n') + '\n';
  });
}
