// Where an agent's tabs live: in a browser window of the agent's own, never
// in the user's. Chrome paints, and runs at full speed, only the tab shown
// in each window that is not minimized or entirely covered; a background tab
// of the user's window gets its timers throttled to about one a second and
// chrome.tabs.captureVisibleTab cannot see it. So an agent's tab is the
// active tab of its own window: it works at full speed and a screenshot of
// it leaves the user's window, tab and focus alone. The window is opened
// without the focus, offset from the user's window by CASCADE_PX so that
// neither covers the other entirely (a covered window is not painted).
//
// An agent's window is found from the tabs: a normal window that holds only
// tabs the agent owns. Nothing more is stored, so a window the user closes,
// or fills with tabs of their own, is simply not the agent's any more, and
// its next new_tab opens a window again.

/** CASCADE_PX is how far the agent's window is offset from the user's, right and down. */
export const CASCADE_PX = 40;

/**
 * besideBounds is where an agent's window opens: the size of win (the
 * user's window), offset by CASCADE_PX; {} when win has no bounds (a
 * minimized or headless window may not).
 */
export function besideBounds(win) {
  if (!win || win.state === 'minimized' || ![win.left, win.top, win.width, win.height].every(Number.isInteger)) return {};
  return { left: win.left + CASCADE_PX, top: win.top + CASCADE_PX, width: win.width, height: win.height };
}

/**
 * agentWindow is the id of a normal window that holds only tabs owned by
 * client (mine(tabId) says whether a tab is), looked for through the
 * windows of the tabs ids (newest last, which is tried first); undefined
 * when there is none.
 */
export async function agentWindow(api, ids, mine) {
  const tried = new Set();
  for (const id of [...ids].reverse()) {
    const tab = await api.tabs.get(id).catch(() => null);
    if (!tab || tried.has(tab.windowId)) continue;
    tried.add(tab.windowId);
    const win = await api.windows.get(tab.windowId, { populate: true }).catch(() => null);
    if (win?.type === 'normal' && win.tabs?.length && win.tabs.every((t) => mine(t.id))) return win.id;
  }
  return undefined;
}

/**
 * openAgentTab opens a tab at url (blank when undefined) in client's
 * window, made when it has none (unfocused, beside the last focused
 * window), and resolves to the tab. active false leaves the tab the window
 * shows as it is, except in a new window, where the tab is the only one.
 * The user's focused window and its active tab are never changed.
 */
export async function openAgentTab(api, { ids, mine, url, active = true }) {
  const windowId = await agentWindow(api, ids, mine);
  if (windowId !== undefined) {
    // Created active, Chrome would also focus its window: made active after.
    const tab = await api.tabs.create({ windowId, url, active: false });
    return active ? api.tabs.update(tab.id, { active: true }) : tab;
  }
  const from = await api.windows.getLastFocused({ windowTypes: ['normal'] }).catch(() => null);
  const bounds = besideBounds(from);
  let win;
  try {
    win = await api.windows.create({ url, focused: false, state: 'normal', ...bounds });
  } catch {
    // Bounds Chrome refuses (mostly off the screen): its own placement.
    win = await api.windows.create({ url, focused: false, state: 'normal' });
  }
  // Some window managers, and Chrome's --window-position flag, place a new
  // window over the last one whatever the bounds: move it aside, or it
  // covers the user's window, which Chrome then stops painting.
  if (bounds.left !== undefined && (win.left !== bounds.left || win.top !== bounds.top)) {
    await api.windows.update(win.id, bounds).catch(() => {});
  }
  return win.tabs[0];
}
