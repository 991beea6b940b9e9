// The idle registration's native-dialog reporter, in the MAIN world of
// every top document loaded while no agent works (dist/start-main-idle.js,
// after capture/main/lean.js). Such a document has no dialog wrappers
// (actions/dialogs.js comes at work only), so an alert at load or from a
// timer shows natively and freezes the page; without a word from the page
// the worker could only guess so from a failed probe, seconds later.
// Here alert, confirm and prompt tell capture/lean-tell.js (ISOLATED world)
// of the dialog, kind and message, before they show it; it tells the
// worker (actions/dialog.js watchDialogs), so an agent's command on that
// tab fails at once naming the dialog. A
// beforeunload on a page the user interacted with (Chrome prompts on no
// other) is told as may-show; the worker believes it only while the page
// does not answer.
//
// The channel: a detached text node handed at document_start,
// before any page script, as the relatedTarget of a cancelable FocusEvent
// ("gasoline:dlg") that lean-tell.js (which runs first) takes and cancels;
// an event "d" on it carries the kind, a newline and the message, as text
// (objects do not cross worlds; the worker caps it). Nothing is wrapped
// when no one took it. Bytes count here (every page loaded idle pays
// them, extension/test/budget.test.js), so unlike dialogs.js this saves
// no built-in but the native dialogs: a page that hooks dispatchEvent may
// find the node and report dialogs of its own, which the worker
// believes only while the page does not answer (nativeDialog), and learns
// only what it knew. No report follows the answer: the worker forgets the
// dialog once the page answers again. When an agent's action brings
// dialogs.js late, it wraps these (it saves window.alert as it finds it),
// and a dialog it answers never reaches them.
{
  const node = new Text();
  if (!dispatchEvent(new FocusEvent('gasoline:dlg', { relatedTarget: node, cancelable: true }))) {
    const say = (type, message) => node.dispatchEvent(new CustomEvent('d', { detail: `${type}\n${message ?? ''}` }));
    for (const type of ['alert', 'confirm', 'prompt']) {
      const native = window[type];
      window[type] = {
        [type](message) {
          say(type, message);
          return Reflect.apply(native, this, arguments);
        },
      }[type];
    }
    addEventListener('beforeunload', () => {
      if (navigator.userActivation?.hasBeenActive) say('beforeunload');
    }, true);
  }
}
