// Progressive enhancement for the console; every page works without it.
(function () {
  'use strict';

  // Auto-refresh: a region marked by a [data-refresh] checkbox is re-fetched every 5 s while the
  // box is ticked (remembered per page), except while focus is inside it, so nobody loses their place.
  document.querySelectorAll('input[data-refresh]').forEach(function (box) {
    var target = document.querySelector(box.getAttribute('data-refresh'));
    if (!target) return;
    var label = box.closest('label');
    if (label) label.hidden = false;
    var key = 'console:auto-refresh:' + location.pathname;
    box.checked = localStorage.getItem(key) === '1';
    var timer = null;
    function tick() {
      if (target.contains(document.activeElement)) return;
      fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } })
        .then(function (res) {
          return res.ok ? res.text() : null;
        })
        .then(function (text) {
          if (!text) return;
          var doc = new DOMParser().parseFromString(text, 'text/html');
          var fresh = doc.querySelector(box.getAttribute('data-refresh'));
          if (fresh && !target.contains(document.activeElement)) target.innerHTML = fresh.innerHTML;
          var now = doc.querySelector('.now time');
          var mine = document.querySelector('.now time');
          if (now && mine) mine.replaceWith(now);
        })
        .catch(function () {});
    }
    function apply() {
      localStorage.setItem(key, box.checked ? '1' : '0');
      if (timer) clearInterval(timer);
      timer = box.checked ? setInterval(tick, 5000) : null;
    }
    box.addEventListener('change', apply);
    apply();
  });

  // A copy button next to secrets shown once.
  document.querySelectorAll('code.secret').forEach(function (code) {
    if (!navigator.clipboard) return;
    var btn = document.createElement('button');
    btn.type = 'button';
    btn.className = 'small copy';
    btn.textContent = 'Copy';
    btn.setAttribute('aria-label', 'Copy ' + (code.id === 'new-api-key' ? 'the new API key' : 'this value'));
    btn.addEventListener('click', function () {
      navigator.clipboard.writeText(code.textContent || '').then(function () {
        btn.textContent = 'Copied';
        setTimeout(function () {
          btn.textContent = 'Copy';
        }, 1500);
      });
    });
    code.after(btn);
  });
})();
