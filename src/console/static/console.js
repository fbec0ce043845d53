// The console's one script, served from Herald: progressive enhancement only.
// Every page works without it; it adds live progress on a push's page and a
// live preview on the compose page. It writes text, never markup.
(function () {
  'use strict';

  function text(selector, value) {
    var element = document.querySelector(selector);
    if (element) element.textContent = value;
  }

  function watchPush(live) {
    if (!('EventSource' in window)) return;
    var source = new EventSource(live.getAttribute('data-live-url'));
    live.textContent = 'Watching live…';
    source.addEventListener('progress', function (event) {
      var progress = JSON.parse(event.data);
      Object.keys(progress.counts).forEach(function (name) {
        text('[data-count="' + name + '"]', String(progress.counts[name]));
      });
      var status = document.querySelector('[data-push-status]');
      if (status) {
        status.textContent = progress.status;
        status.className = 'status ' + progress.status;
      }
      var reasons = document.querySelector('[data-reasons]');
      if (reasons) {
        var body = reasons.querySelector('tbody');
        while (body.firstChild) body.removeChild(body.firstChild);
        progress.reasons.forEach(function (entry) {
          var row = document.createElement('tr');
          var reason = document.createElement('td');
          reason.textContent = entry.reason;
          var count = document.createElement('td');
          count.className = 'num';
          count.textContent = String(entry.count);
          row.appendChild(reason);
          row.appendChild(count);
          body.appendChild(row);
        });
      }
      if (progress.errorMessage) text('[data-error-message]', progress.errorMessage);
    });
    source.addEventListener('end', function () {
      source.close();
      live.textContent = 'Finished.';
    });
    source.addEventListener('gone', function () {
      source.close();
      live.textContent = 'This push was cancelled or deleted.';
    });
    source.onerror = function () {
      live.textContent = 'Live updates interrupted; retrying…';
    };
  }

  function previewCompose(form) {
    var timer = null;
    var url = form.getAttribute('data-preview-url');
    function refresh() {
      var data = new URLSearchParams(new FormData(form));
      data.set('action', 'preview');
      fetch(url, { method: 'POST', body: data, credentials: 'same-origin', headers: { Accept: 'application/json' } })
        .then(function (response) {
          return response.json();
        })
        .then(function (answer) {
          text('[data-preview-error]', answer.error || '');
          text('[data-preview="apns-headers"]', answer.apns ? answer.apns.headers.map(function (h) { return h[0] + ': ' + h[1]; }).join('\n') : '(no iOS device)');
          text('[data-preview="apns-body"]', answer.apns ? answer.apns.body : '');
          text('[data-preview="fcm-body"]', answer.fcm ? answer.fcm.body : '(no Android device)');
          var makers = answer.makers || [];
          Array.prototype.forEach.call(document.querySelectorAll('[data-maker]'), function (details) {
            var gateway = details.getAttribute('data-maker');
            var shown = makers.filter(function (maker) { return maker.gateway === gateway; })[0];
            text('[data-preview="maker-' + gateway + '"]', shown ? (shown.body === null ? '(nothing is sent)' : shown.body) : '(no device of this maker)');
            text('[data-preview-note="' + gateway + '"]', shown ? (shown.profile === null ? '' : 'Profile ' + shown.profile + '. ') + shown.note : '');
          });
        })
        .catch(function () {
          text('[data-preview-error]', 'The preview could not be updated.');
        });
    }
    form.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 400);
    });
  }

  var live = document.querySelector('[data-live-url]');
  if (live) watchPush(live);
  var compose = document.querySelector('form[data-preview-url]');
  if (compose) previewCompose(compose);
})();
