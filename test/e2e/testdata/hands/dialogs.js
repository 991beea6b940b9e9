// The dialogs fixture: each answer the page got is appended to #log.
const log = (s) => {
  document.getElementById('log').textContent += s + '\n';
};
const $ = (id) => document.getElementById(id);

$('ask').addEventListener('click', () => log('confirm ' + confirm('Delete it?')));
$('name').addEventListener('click', () => log('prompt ' + prompt('Your name?', 'nobody')));
// A dialog opened after the click's action has ended, as a timer or a
// network answer would.
$('later').addEventListener('click', () => setTimeout(() => log('later ' + confirm('Still there?')), 300));
$('hello').addEventListener('click', () => {
  alert('Hello user');
  log('alert closed');
});
$('guard').addEventListener('click', () => {
  addEventListener('beforeunload', (e) => {
    e.preventDefault();
    e.returnValue = '';
  });
  log('guarded');
});
