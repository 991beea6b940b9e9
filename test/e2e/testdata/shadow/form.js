// submitTo makes form post what it submits to /shadow/submit?kit=kit, as
// JSON of its FormData (the custom elements' values included, as a
// server would get them), once every element of tags is defined; the
// page says "Submitted" when the server has it. The page is "ready"
// (document.body.dataset.ready) when the elements are defined.
export async function submitTo(form, kit, tags) {
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = {};
    for (const [k, v] of new FormData(form)) data[k] = String(v);
    const r = await fetch(`/shadow/submit?kit=${kit}`, { method: 'POST', body: JSON.stringify(data) });
    document.getElementById('status').textContent = r.ok ? `Submitted ${kit}` : `Failed ${r.status}`;
  });
  await Promise.all(tags.map((t) => customElements.whenDefined(t)));
  document.body.dataset.ready = 'true';
}
