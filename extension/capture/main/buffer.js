// The page side's record buffer (pure, unit-tested under node).
import { arrShift, arrSplice } from './builtins.js';

/**
 * Buffer holds records until they are posted: at most `limit`, dropping
 * the oldest and counting drops per kind. Pure; the page side wraps it.
 */
export function Buffer(limit) {
  this.limit = limit;
  this.items = [];
  this.dropped = {};
  this.droppedAny = false;
}
Buffer.prototype.push = function push(rec) {
  const items = this.items;
  if (items.length >= this.limit) {
    const old = arrShift(items);
    this.dropped[old.kind] = (this.dropped[old.kind] || 0) + 1;
    this.droppedAny = true;
  }
  items[items.length] = rec;
  return items.length;
};
/** take removes up to n records and the drop counts: {events, dropped?}. */
Buffer.prototype.take = function take(n) {
  const events = arrSplice(this.items, 0, n);
  const msg = { events };
  if (this.droppedAny) {
    msg.dropped = this.dropped;
    this.dropped = {};
    this.droppedAny = false;
  }
  return msg;
};
