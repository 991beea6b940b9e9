// The draw-mode overlay's look (overlay.js): its host element's tag and
// the style of its closed shadow root.
export const HOST_TAG = 'gasoline-draw-overlay';

export const CSS = `
  :host { all: initial; }
  .layer { position: fixed; inset: 0; cursor: crosshair; z-index: 1; }
  .layer.pick { cursor: pointer; }
  .layer:focus { outline: none; }
  .bar { position: fixed; left: 0; right: 0; top: 8px; margin: 0 auto; width: max-content; max-width: calc(100vw - 32px); z-index: 3; box-sizing: border-box;
    display: flex; gap: 8px; align-items: center; padding: 8px 12px; border-radius: 8px;
    background: #1f2328; color: #fff; font: 14px/1.3 system-ui, sans-serif; box-shadow: 0 2px 12px rgba(0,0,0,.4); }
  .bar .msg { flex: 1; }
  .bar button { font: inherit; padding: 4px 10px; border-radius: 6px; border: 0; cursor: pointer; }
  .bar .done { background: #2da44e; color: #fff; }
  .box { position: fixed; border: 2px solid #e5534b; background: rgba(229,83,75,.12); z-index: 2; pointer-events: none; box-sizing: border-box; }
  .box.hover { border-color: #2f81f7; background: rgba(47,129,247,.12); }
  .box .n { position: absolute; left: -2px; top: -22px; background: #e5534b; color: #fff; font: 12px system-ui, sans-serif; padding: 2px 6px; border-radius: 4px; }
  .note { position: fixed; z-index: 3; width: 220px; height: 26px; border: 0; padding: 0; background: transparent; color-scheme: normal; }
  .note.spare { left: -10000px; top: 0; opacity: 0; pointer-events: none; }
  .toast { position: fixed; left: 50%; top: 45%; transform: translateX(-50%); z-index: 4; padding: 14px 20px; border-radius: 8px;
    background: #2da44e; color: #fff; font: 16px system-ui, sans-serif; }
  .toast.err { background: #cf222e; }
`;
