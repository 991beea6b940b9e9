// "tab" capture events from chrome.tabs: a tab loading, finishing, changing
// URL, title or tab group, closing, or becoming the active tab. Pure
// converters; the worker wires them to chrome.tabs.onUpdated / onRemoved /
// onActivated and adds the tab's owner and group (tabs/owners.js describe).

/**
 * tabUpdated returns the event for chrome.tabs.onUpdated, or null when the
 * change is of no interest (favicon, audible, ...). tab is Chrome's Tab.
 */
export function tabUpdated(tabId, change, tab, now = Date.now()) {
  if (!change || !('status' in change || 'url' in change || 'title' in change || 'groupId' in change)) return null;
  const e = {
    kind: 'tab',
    ts: now,
    tab_id: tabId,
    frame_id: 0,
    page_url: tab?.url ?? tab?.pendingUrl ?? change.url ?? '',
    type: 'updated',
  };
  if (typeof tab?.title === 'string') e.title = tab.title;
  const status = change.status ?? tab?.status;
  if (status === 'loading' || status === 'complete') e.status = status;
  if (typeof tab?.active === 'boolean') e.active = tab.active;
  if (Number.isInteger(tab?.windowId)) e.window_id = tab.windowId;
  return e;
}

/** tabNoted returns an "updated" event with all that tab, Chrome's Tab, says. */
export function tabNoted(tab, now = Date.now()) {
  return tabUpdated(tab.id, { status: tab.status }, tab, now);
}

/** tabRemoved returns the event for chrome.tabs.onRemoved; lastUrl is the tab's last known URL. */
export function tabRemoved(tabId, info, lastUrl = '', now = Date.now()) {
  const e = { kind: 'tab', ts: now, tab_id: tabId, frame_id: 0, page_url: lastUrl, type: 'removed' };
  if (Number.isInteger(info?.windowId)) e.window_id = info.windowId;
  return e;
}

/** tabActivated returns the event for chrome.tabs.onActivated; tab is Chrome's Tab if known. */
export function tabActivated(info, tab, now = Date.now()) {
  const e = {
    kind: 'tab',
    ts: now,
    tab_id: info.tabId,
    frame_id: 0,
    page_url: tab?.url ?? '',
    type: 'activated',
    active: true,
  };
  if (typeof tab?.title === 'string') e.title = tab.title;
  if (tab?.status === 'loading' || tab?.status === 'complete') e.status = tab.status;
  if (Number.isInteger(info.windowId)) e.window_id = info.windowId;
  return e;
}
