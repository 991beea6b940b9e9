// The fixture's script: it says it ran, then lists the orders the API
// returns (sent with a credential the capture must redact; it is built here
// so that this file's text, which the HAR holds, does not contain it).
const token = ['har', 'secret', 'token'].join('-');
document.getElementById('script').textContent = 'the script ran';
window.fixtureDone = fetch('api/orders?status=open', { headers: { Authorization: `Bearer ${token}` } })
  .then((r) => r.json())
  .then((orders) => {
    for (const o of orders) {
      const li = document.createElement('li');
      li.textContent = `${o.id}: ${o.item}`;
      document.getElementById('orders').append(li);
    }
    document.body.dataset.ready = 'yes';
    return true;
  });
