// A React 18 app with controlled inputs only: every value lives in React
// state, so an input event that React's value tracker does not see leaves
// the state (and what the page shows) unchanged. No JSX, no build step.
'use strict';
const { useState } = React;
const h = React.createElement;

function App() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [plan, setPlan] = useState('free');
  const [terms, setTerms] = useState(false);
  const [clicks, setClicks] = useState(0);
  const [submitted, setSubmitted] = useState(null);
  const [keys, setKeys] = useState([]);
  const [coupon, setCoupon] = useState('');

  const submit = (e) => {
    e.preventDefault();
    setSubmitted({ name, email, plan, terms });
  };
  return h('main', null,
    h('h1', null, 'Create your account'),
    h('form', { 'aria-label': 'Signup', onSubmit: submit },
      h('label', null, 'Name ', h('input', { value: name, onChange: (e) => setName(e.target.value) })),
      h('label', null, 'Email ', h('input', {
        type: 'email', value: email, onChange: (e) => setEmail(e.target.value),
        onKeyDown: (e) => setKeys((k) => k.concat(e.key)),
      })),
      h('label', null, 'Plan ', h('select', { value: plan, onChange: (e) => setPlan(e.target.value) },
        h('option', { value: 'free' }, 'Free'), h('option', { value: 'pro' }, 'Pro'), h('option', { value: 'team' }, 'Team'))),
      h('label', null, h('input', { type: 'checkbox', checked: terms, onChange: (e) => setTerms(e.target.checked) }), ' I accept the terms'),
      h('button', { type: 'submit', disabled: !terms }, 'Create account')),
    h('p', { id: 'greeting' }, name ? `Hello, ${name}!` : 'Type your name'),
    h('p', { id: 'plan' }, `Plan: ${plan}`),
    // Its state is the upper-cased text, which React writes back into the
    // input before the input event returns.
    h('label', null, 'Coupon ', h('input', { type: 'text', value: coupon, onChange: (e) => setCoupon(e.target.value.toUpperCase()) })),
    h('button', { type: 'button', onClick: () => setClicks((c) => c + 1) }, `Clicked ${clicks} times`),
    h('p', { id: 'keys' }, `Keys: ${keys.join(' ')}`),
    submitted && h('p', { id: 'result', role: 'status' }, `Submitted ${JSON.stringify(submitted)}`));
}

ReactDOM.createRoot(document.getElementById('root')).render(h(App));
