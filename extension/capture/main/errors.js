// The page's uncaught errors, unhandled rejections and failed resource loads, recorded.
import { getAttr, hasOwn, localNameOf, now, StringCtor, strLower } from './builtins.js';
import { emit, on } from './channel.js';
import { callerSource, errorStack, errorText, formatArgs, isElement, isErrorLike } from './format.js';
import { LIMITS } from './limits.js';
import { addListener, eventTarget, win } from './page.js';
import { clip } from './text.js';

const ErrorEventCtor = win.ErrorEvent;
const RESOURCE_TAGS = { img: 'src', script: 'src', link: 'href', video: 'src', audio: 'src', source: 'src', iframe: 'src', embed: 'src', object: 'data', track: 'src', input: 'src' };

/** captureErrors records uncaught errors, unhandled rejections and failed resource loads. */
export function captureErrors() {
  addListener(win, 'error', onError, true);
  addListener(win, 'unhandledrejection', onRejection, true);
}

/** onError records an uncaught error (an ErrorEvent) or an element's failed load. */
function onError(e) {
  try {
    if (!on('error')) return;
    if (ErrorEventCtor && e instanceof ErrorEventCtor) {
      const rec = { kind: 'error', ts: now(), type: 'uncaught', message: clip(StringCtor(e.message || 'Uncaught error'), LIMITS.message) };
      const err = e.error;
      if (err && typeof err === 'object') {
        const st = errorStack(err);
        if (st) rec.stack = st;
      }
      if (e.filename) rec.source = clip(StringCtor(e.filename), LIMITS.url);
      if (e.lineno) rec.line = e.lineno;
      if (e.colno) rec.column = e.colno;
      emit(rec);
      return;
    }
    const t = eventTarget(e);
    if (!isElement(t)) return;
    const tag = strLower(localNameOf(t));
    const attr = RESOURCE_TAGS[tag];
    if (!attr || !hasOwn(RESOURCE_TAGS, tag)) return;
    let url = '';
    try {
      url = StringCtor(t.currentSrc || t[attr] || getAttr(t, attr) || '');
    } catch {
      url = '';
    }
    emit({
      kind: 'error', ts: now(), type: 'resource', element: tag, resource_url: clip(url, LIMITS.url),
      message: clip('failed to load <' + tag + '> ' + url, LIMITS.message),
    });
  } catch {
    // ignore
  }
}

/** onRejection records an unhandled rejection. */
function onRejection(e) {
  try {
    if (!on('error')) return;
    const reason = e.reason;
    const rec = { kind: 'error', ts: now(), type: 'unhandled_rejection', message: '' };
    if (reason && typeof reason === 'object' && isErrorLike(reason)) {
      rec.message = clip(errorText(reason), LIMITS.message);
      const st = errorStack(reason);
      if (st) {
        rec.stack = st;
        const src = callerSource('\n' + st);
        if (src) rec.source = src;
      }
    } else {
      rec.message = clip(typeof reason === 'string' ? reason : formatArgs([reason]).message, LIMITS.message);
    }
    emit(rec);
  } catch {
    // ignore
  }
}
