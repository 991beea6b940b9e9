document.getElementById('inner').addEventListener('click', () => {
  document.getElementById('frame-log').textContent += 'inner clicked;';
});
