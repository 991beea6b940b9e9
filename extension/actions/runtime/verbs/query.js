// Page verb query: the elements its target matches, at most o.limit, each
// briefly (ref, role, name, text, visible, box). It finds them itself
// (needs finds): none has to be actionable, and none at all is an answer
// (count 0), not a failure.
import { addAction } from '../act.js';
import { boxOf, shows, view } from '../geometry.js';
import { core } from '../globals.js';
import { Failure, brief, candidates } from '../targets.js';

/** query lists the elements o.target matches, at most o.limit (the daemon's default and bounds: internal/tools queryArgs). */
function query(el, o) {
  if (!o.target) throw new Failure('bad_target', 'query needs a target: ref, selector, text, or role (with name)');
  const els = candidates(o.target, o.prefix);
  const out = els.slice(0, o.limit).map((e) => {
    const b = brief(e, o.prefix);
    const text = core.clip(core.norm(e.innerText ?? core.textOf(e, view)), 80);
    if (text && text !== b.name) b.text = text;
    b.visible = shows(e);
    b.box = boxOf(e);
    return b;
  });
  return { count: els.length, elements: out };
}

addAction('query', { finds: true }, query);
