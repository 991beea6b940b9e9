// Page verb upload, in the extension's ISOLATED world of a document, after
// dist/runtime.js (a classic script, as the other files of actions/verbs/). It adds the
// "upload" action to the runtime: the element the target names must be a
// file input, or a label of one, or hold exactly one; hidden inputs are
// fine (pages usually hide them behind a styled button). The files come
// from the worker as {name, type, size, last_modified, data (base64)}; they
// are made into File objects and set on the input through a DataTransfer,
// then input and change are fired, as the browser does after its file
// picker closes. The page reads them as it would the user's (FileReader,
// FormData, fetch).
(() => {
  const rt = globalThis.gasolineRuntime;
  if (!rt?.addAction) return;

  /** bytesOf decodes base64 to bytes. */
  function bytesOf(b64) {
    const bin = atob(String(b64 ?? ''));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  const isFileInput = (el) => el?.localName === 'input' && String(el.type).toLowerCase() === 'file';

  /** fileInputOf is the file input el is, labels, or holds alone; null when none. */
  function fileInputOf(el) {
    if (isFileInput(el)) return el;
    if (el.localName === 'label' && isFileInput(el.control)) return el.control;
    const inner = el.querySelectorAll?.('input[type=file i]') ?? [];
    return inner.length === 1 ? inner[0] : null;
  }

  rt.addAction('upload', { enabled: true, control: true, invisible: true }, async (el, o) => {
    const input = fileInputOf(el);
    if (!input) {
      throw new rt.Failure('not_editable', `${rt.describe(el)} is not a file input and holds none (or several); ` +
        'target the <input type=file> itself, e.g. selector "input[type=file]" (hidden ones are fine)');
    }
    if (input.disabled) throw new rt.Failure('disabled', `${rt.describe(input)} is disabled; do what enables it first`);
    const files = Array.isArray(o.files) ? o.files : [];
    if (files.length > 1 && !input.multiple) {
      throw new rt.Failure('not_editable', `${rt.describe(input)} takes one file (no multiple attribute), not ${files.length}; upload one`);
    }
    const dt = new DataTransfer();
    for (const f of files) {
      dt.items.add(new File([bytesOf(f.data)], String(f.name), { type: String(f.type ?? ''), lastModified: Number(f.last_modified) || Date.now() }));
    }
    input.files = dt.files;
    input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
    return { files: Array.from(input.files, (f) => ({ name: f.name, size: f.size, type: f.type })) };
  });
})();
