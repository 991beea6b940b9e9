// Tabs per agent. Each command from GET /pending-queries names its client
// (one MCP session: an agent) and that client's name. TabOwners keeps:
//   - which client owns which tab (the tabs it opened with new_tab, a tab
//     navigate opened for it, and tabs those tabs open);
//   - each client's last used tab, where its commands without tab_id go;
//   - one Chrome tab group per client and window, titled after the client.
// The state lives in chrome.storage.session: a worker restart keeps it, a
// browser restart (new tab ids) forgets it. Tab ids are stable when the user
// drags a tab to another window, so ownership follows the tab; when Chrome
// replaces a tab (chrome.tabs.onReplaced: a new id for the same tab), owner
// and last used move to the new id.
//
// run(query, signal, exec) wraps the execution of one query (background.js
// passes runQuery as exec); it is the one place the rules apply:
//   - new_tab: the new tab opens in the client's window of its own
//     (tabs/windows.js: made unfocused when it has none, so the user's
//     window, tab and focus stay as they are), is the client's, joins its
//     group, becomes its last used tab;
//   - an explicit tab_id of another agent's tab is refused, naming the
//     owner, unless params.force is true, for every action but switch_tab
//     (which only brings it to the front) and har_bodies (the daemon's own
//     read for a HAR export): an agent that mistypes or reuses a stale tab
//     id must not run scripts in, act in, reload, screenshot or close
//     another agent's page. Tabs no agent owns (the user's) need no force;
//   - without tab_id: the client's last used tab if it still exists (for
//     navigate and close_tab only if the client owns it), else another tab it
//     owns; else navigate opens a tab for it (at its URL, so that the tab's
//     history starts with the agent's page), close_tab fails, and the other
//     actions use the active tab of the last focused window unless another
//     agent owns that tab.
// A command to a tab of the client's own window that window does not show
// first makes it the tab shown there (a tab not shown is throttled and
// cannot be captured); a tab in a window that also holds others' tabs is
// never switched to. After a command succeeds, the tab it worked in becomes
// the client's last used tab, unless another agent owns it. Draw mode,
// which the user works in, keeps to the tab in front.

import { CommandError } from '../runner.js';
import { activeTab } from './resolve.js';
import { openAgentTab, agentWindow } from './windows.js';

/** STORAGE_KEY is the chrome.storage.session key of the ownership state. */
export const STORAGE_KEY = 'tabs:owners';

/** MAX_CLIENTS bounds the clients whose last used tab and groups are kept. */
export const MAX_CLIENTS = 200;

// Tab group colours, picked per client so that agents differ at a glance.
const COLOURS = ['blue', 'green', 'purple', 'cyan', 'orange', 'pink', 'yellow', 'red', 'grey'];

const NO_GROUP = -1; // chrome.tabGroups.TAB_GROUP_ID_NONE

// OPEN is what choose returns when navigate opens its client's tab itself.
const OPEN = Symbol('open a tab');

// USER_FACING actions show something to the user, who looks at the tab in
// front: without tab_id they keep to the active tab, whoever owns it.
const USER_FACING = new Set(['draw_mode_show']);

// UNGUARDED actions take another agent's tab_id without params.force:
// they neither change nor read its page (release_capture hands on what
// the capture holds, as any capture read does).
const UNGUARDED = new Set(['switch_tab', 'release_capture']);

/** fallbackName names a client that sent no clientInfo.name. */
export function fallbackName(client) {
  return `agent ${String(client).slice(-4).toLowerCase()}`;
}

function colourOf(client) {
  let h = 0;
  for (const ch of String(client)) h = (h * 31 + ch.codePointAt(0)) >>> 0;
  return COLOURS[h % COLOURS.length];
}

function emptyState() {
  // tabs: tabId -> {client, name}; last: client -> tabId (least recently
  // used first); groups: "client window" -> groupId.
  return { tabs: {}, last: {}, groups: {} };
}

export class TabOwners {
  /**
   * api is the chrome namespace; onChange(tabId) is called when a tab's
   * owner or group changes (capture reports the tab again); facts answers
   * chrome.tabs.get for the rules (background.js passes tabs/facts.js's,
   * which keeps an answer until the tab changes; drop(tabId) after the
   * extension changed it).
   */
  constructor({ api = globalThis.chrome, onChange = () => {}, log = console, facts = { get: (id) => api.tabs.get(id), drop() {} } } = {}) {
    this.api = api;
    this.facts = facts;
    this.onChange = onChange;
    this.log = log;
    this.state = emptyState();
    this.loading = null;
    this.saving = Promise.resolve();
    this.locks = new Map(); // client -> the tail of its chain of tab choices
  }

  /**
   * listen registers the chrome.tabs listeners; background.js calls it
   * synchronously at module start, as MV3 requires.
   */
  listen() {
    this.api.tabs.onRemoved.addListener((tabId) => {
      this.ready().then(() => this.forget(tabId));
    });
    this.api.tabs.onCreated?.addListener((tab) => {
      this.ready().then(() => this.inherit(tab));
    });
    this.api.tabs.onReplaced?.addListener((addedId, removedId) => {
      this.ready().then(() => this.replace(addedId, removedId));
    });
  }

  /**
   * ready resolves once the state is loaded from chrome.storage.session,
   * without the tabs closed meanwhile (while no worker ran to see it).
   */
  ready() {
    this.loading ??= (async () => {
      try {
        const got = await this.api.storage.session.get(STORAGE_KEY);
        const s = got?.[STORAGE_KEY];
        if (s && typeof s === 'object') {
          this.state = { tabs: { ...s.tabs }, last: { ...s.last }, groups: { ...s.groups } };
        }
        const open = new Set((await this.api.tabs.query({})).map((t) => String(t.id)));
        let pruned = false;
        for (const id of Object.keys(this.state.tabs)) {
          if (!open.has(id)) {
            delete this.state.tabs[id];
            pruned = true;
          }
        }
        for (const [client, id] of Object.entries(this.state.last)) {
          if (!open.has(String(id))) {
            delete this.state.last[client];
            pruned = true;
          }
        }
        if (pruned) this.save();
      } catch (err) {
        this.log.warn('gasoline: reading the tab owners:', err?.message || err);
      }
    })();
    return this.loading;
  }

  save() {
    const snapshot = JSON.parse(JSON.stringify(this.state));
    this.saving = this.saving
      .then(() => this.api.storage.session.set({ [STORAGE_KEY]: snapshot }))
      .catch((err) => this.log.warn('gasoline: saving the tab owners:', err?.message || err));
    return this.saving;
  }

  /** ownerOf is {client, name} of the agent that owns tabId, or undefined (after ready). */
  ownerOf(tabId) {
    return this.state.tabs[tabId];
  }

  /** lastOf is client's last used tab id, or undefined. */
  lastOf(client) {
    return this.state.last[client];
  }

  /** nameOf is client's name: the one the query gave, else one remembered, else one made from its id. */
  nameOf(client, given) {
    if (typeof given === 'string' && given.trim()) return given.trim();
    for (const o of Object.values(this.state.tabs)) {
      if (o.client === client && o.name) return o.name;
    }
    return fallbackName(client);
  }

  /** forget drops a closed tab; a client whose last used tab it was falls back to another tab it owns. */
  forget(tabId) {
    const owner = this.state.tabs[tabId];
    let changed = false;
    if (owner) {
      delete this.state.tabs[tabId];
      changed = true;
    }
    for (const [client, id] of Object.entries(this.state.last)) {
      if (id !== tabId) continue;
      delete this.state.last[client];
      const other = this.ownedBy(client).at(-1);
      if (other !== undefined) this.state.last[client] = other;
      changed = true;
    }
    if (changed) this.save();
  }

  /**
   * replace moves what is known of tab removedId to addedId: Chrome swapped
   * the tab's contents for another tab id (a prerendered or discarded page),
   * and the agent's tab must stay its own and its last used.
   */
  replace(addedId, removedId) {
    if (!Number.isInteger(addedId) || addedId === removedId) return;
    let changed = false;
    const owner = this.state.tabs[removedId];
    if (owner) {
      delete this.state.tabs[removedId];
      this.state.tabs[addedId] = owner;
      changed = true;
    }
    for (const [client, id] of Object.entries(this.state.last)) {
      if (id !== removedId) continue;
      this.state.last[client] = addedId; // same key: its place in the least recently used order stays
      changed = true;
    }
    if (!changed) return;
    this.save();
    this.onChange(addedId);
  }

  /** ownedBy lists the ids of the tabs client owns, oldest first. */
  ownedBy(client) {
    return Object.entries(this.state.tabs).filter(([, o]) => o.client === client).map(([id]) => Number(id)).sort((a, b) => a - b);
  }

  /** inherit gives a tab opened from an agent's tab (a link, window.open) to that agent. */
  inherit(tab) {
    const from = Number.isInteger(tab?.openerTabId) ? this.state.tabs[tab.openerTabId] : undefined;
    if (!from || this.state.tabs[tab.id]) return;
    this.state.tabs[tab.id] = { client: from.client, name: from.name };
    this.save();
    this.onChange(tab.id);
  }

  /** use makes tabId client's last used tab, unless another agent owns it. */
  use(client, tabId) {
    if (!Number.isInteger(tabId)) return;
    const owner = this.state.tabs[tabId];
    if (owner && owner.client !== client) return;
    // Already client's last tab, and client the last to use one: nothing
    // to store (a write per command cost the worker's thread ~0.3 ms).
    if (this.state.last[client] === tabId && Object.keys(this.state.last).at(-1) === client) return;
    delete this.state.last[client];
    this.state.last[client] = tabId;
    const clients = Object.keys(this.state.last);
    for (const old of clients.slice(0, Math.max(0, clients.length - MAX_CLIENTS))) {
      delete this.state.last[old];
      for (const key of Object.keys(this.state.groups)) {
        if (key.startsWith(`${old} `)) delete this.state.groups[key];
      }
    }
    this.save();
  }

  /**
   * adopt makes the new tab client's and puts it in client's group of its
   * window (created when missing, or when the user dissolved it). It
   * resolves to the group's title, or null when grouping failed: a tab
   * outside its group is still the client's.
   */
  async adopt(tab, client, name) {
    this.state.tabs[tab.id] = { client, name };
    this.save();
    let title = null;
    try {
      title = await this.group(tab, client, name);
    } catch (err) {
      this.log.warn(`gasoline: grouping tab ${tab.id}:`, err?.message || err);
    }
    this.onChange(tab.id);
    return title;
  }

  async group(tab, client, name) {
    const { tabs, tabGroups } = this.api;
    if (!tabGroups || typeof tabs.group !== 'function' || !Number.isInteger(tab.windowId)) return null;
    const key = `${client} ${tab.windowId}`;
    const known = this.state.groups[key];
    const existing = Number.isInteger(known) ? await tabGroups.get(known).catch(() => null) : null;
    if (existing && existing.windowId === tab.windowId) {
      await tabs.group({ groupId: existing.id, tabIds: [tab.id] });
      this.facts.drop(tab.id);
      return existing.title || name;
    }
    const groupId = await tabs.group({ tabIds: [tab.id], createProperties: { windowId: tab.windowId } });
    this.facts.drop(tab.id);
    this.state.groups[key] = groupId;
    this.save();
    await tabGroups.update(groupId, { title: name, color: colourOf(client) });
    return name;
  }

  /**
   * describe is what capture reports about a tab besides Chrome's fields:
   * owner (client id), owner_name and, when Chrome says, group (the title
   * of its tab group, "" for none).
   */
  async describe(tab) {
    await this.ready();
    const owner = this.state.tabs[tab?.id];
    const out = { owner: owner?.client ?? '', owner_name: owner?.name ?? '' };
    if (Number.isInteger(tab?.groupId)) {
      out.group = '';
      if (tab.groupId !== NO_GROUP && this.api.tabGroups) {
        const g = await this.api.tabGroups.get(tab.groupId).catch(() => null);
        out.group = g?.title || (g ? 'untitled group' : '');
      }
    }
    return out;
  }

  /**
   * run executes query (through exec(query, signal, hooks), i.e. runQuery)
   * in the tab the rules choose for its client, and records what it used.
   * A query without a client (an older daemon) runs as it always did.
   */
  async run(query, signal, exec) {
    const client = typeof query?.client === 'string' ? query.client : '';
    const params = query?.params && typeof query.params === 'object' ? query.params : {};
    const action = query?.action;
    if (!client) return exec(query, signal);
    const explicit = params.tab_id !== undefined && params.tab_id !== null && params.tab_id !== '';
    if (USER_FACING.has(action) && !explicit) return exec(query, signal);
    await this.ready();
    if (explicit && !UNGUARDED.has(action) && params.force !== true) this.guard(client, action, Number(params.tab_id));
    if (USER_FACING.has(action)) return exec(query, signal);
    const name = this.nameOf(client, query.client_name);

    const reveal = (tab) => this.reveal(tab, client);
    if (action === 'new_tab') {
      const make = this.maker(client, name);
      const result = await exec(query, signal, { create: (props) => this.serial(client, () => make(props)), reveal });
      this.use(client, result?.tab_id);
      return result;
    }
    const front = async (id) => {
      if (action !== 'close_tab' && action !== 'switch_tab') await this.reveal(id, client);
    };
    let chosen;
    let result;
    if (explicit || action === 'switch_tab') {
      if (explicit) await front(Number(params.tab_id));
      result = await exec(query, signal, { reveal });
    } else {
      let opening;
      chosen = await this.serial(client, async () => {
        const id = await this.choose(client, name, action, params);
        if (id !== OPEN) return id;
        opening = this.open(query, params, signal, exec, client, name);
        return opening.created;
      });
      if (!opening) await front(chosen);
      result = opening ? await opening.loaded : await exec({ ...query, params: { ...params, tab_id: chosen } }, signal, { reveal });
    }
    if (action !== 'close_tab') {
      const used = Number.isInteger(result?.tab_id) ? result.tab_id : explicit ? Number(params.tab_id) : chosen;
      this.use(client, used);
    }
    return result;
  }

  /**
   * maker returns what opens a tab for client: in its window of its own
   * (tabs/windows.js), made client's before it resolves to the tab.
   */
  maker(client, name) {
    return async ({ url, active } = {}) => {
      const tab = await openAgentTab(this.api, { ids: this.ownedBy(client), mine: (id) => this.state.tabs[id]?.client === client, url, active });
      await this.adopt(tab, client, name);
      return tab;
    };
  }

  /**
   * reveal makes tab (a tab or its id) the one its window shows, when it
   * is client's and its window is client's own (holding only client's
   * tabs), and resolves to the tab as it is then; to null when it is not
   * shown and may not be switched to (the user's window, another agent's),
   * or is gone. It never focuses a window.
   */
  async reveal(tab, client) {
    if (!tab || typeof tab !== 'object') tab = await this.facts.get(Number(tab)).catch(() => null);
    if (!tab) return null;
    if (tab.active) return tab;
    const mine = (id) => this.state.tabs[id]?.client === client;
    if (!mine(tab.id) || (await agentWindow(this.api, [tab.id], mine)) !== tab.windowId) return null;
    this.facts.drop(tab.id);
    return this.api.tabs.update(tab.id, { active: true }).catch(() => null);
  }

  /** guard refuses action on tabId when another agent owns it. */
  guard(client, action, tabId) {
    const owner = this.state.tabs[tabId];
    if (!owner || owner.client === client) return;
    throw new CommandError(`tab ${tabId} belongs to agent ${owner.name}, so ${action} there is refused; ` +
      `pass force:true to ${action} there anyway, or use a tab of your own (new_tab)`);
  }

  /** serial runs fn after client's earlier choices: two navigates at once open one tab. */
  serial(client, fn) {
    const prev = this.locks.get(client) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => {});
    this.locks.set(client, tail);
    tail.then(() => {
      if (this.locks.get(client) === tail) this.locks.delete(client);
    });
    return next;
  }

  /**
   * choose returns the id of the tab a command of client without tab_id goes
   * to, or OPEN when navigate must open a tab for it at params.url.
   */
  async choose(client, name, action, params) {
    const mustOwn = action === 'navigate' || action === 'close_tab';
    const last = await this.alive(this.state.last[client]);
    if (last !== undefined && (!mustOwn || this.state.tabs[last]?.client === client)) return last;
    for (const id of this.ownedBy(client).reverse()) {
      if ((await this.alive(id)) !== undefined) return id;
    }
    if (action === 'navigate') {
      if (typeof params?.url === 'string' && params.url.trim()) return OPEN;
      return (await this.maker(client, name)({ active: true })).id;
    }
    if (action === 'close_tab') {
      throw new CommandError('close_tab without tab_id closes only a tab this agent opened, and it has none open; ' +
        'pass the tab_id of the tab to close (observe({what:"tabs"}) lists them)');
    }
    const active = await activeTab(this.api);
    const owner = this.state.tabs[active.id];
    if (owner && owner.client !== client) {
      throw new CommandError(`tab ${active.id} (the active tab) belongs to agent ${owner.name}; pass tab_id:${active.id} and force:true to act on it anyway, ` +
        'or open your own tab with new_tab');
    }
    return active.id;
  }

  /**
   * open runs a navigate for client, which has no tab of its own, as a
   * new_tab at its URL: a blank tab navigated afterwards would keep the
   * browser's New Tab page as its first history entry, where the agent's
   * back would land. created resolves to the tab's id once it is client's
   * (or rejects when it could not be opened), loaded to navigate's result.
   */
  open(query, params, signal, exec, client, name) {
    let adopted;
    const created = new Promise((resolve) => { adopted = resolve; });
    const loaded = Promise.resolve().then(() => exec({ ...query, action: 'new_tab', params: { ...params, active: true } }, signal, {
      create: this.maker(client, name),
      onCreated: (tab) => adopted(tab.id),
      reveal: (tab) => this.reveal(tab, client),
    }));
    return { created: Promise.race([created, loaded.then((r) => r?.tab_id)]), loaded };
  }

  /** alive is tabId when that tab exists; else it forgets the tab and is undefined. */
  async alive(tabId) {
    if (!Number.isInteger(tabId)) return undefined;
    if (await this.facts.get(tabId).then(() => true, () => false)) return tabId;
    this.forget(tabId);
    return undefined;
  }
}
