// Portolan Explorer: the try-it panel, added only to the page `portolan serve`
// serves (the file on disk has no network code at all). When a tool row opens,
// a form generated from the tool's input schema is placed under its example
// call; submitting sends a portos_tool_call with a fresh requestId to this
// server's registry and shows the result or the error envelope.
'use strict';
(function () {
  const REGISTRY = (() => {
    const m = document.querySelector('meta[name="portolan-registry"]');
    return m && /^https?:$/.test(location.protocol) ? m.getAttribute('content') : null;
  })();
  if (!REGISTRY) return;
  const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ESC[c]);
  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const arr = (v) => (Array.isArray(v) ? v : []);
  let tools = [];
  try { tools = arr(JSON.parse(document.getElementById('tools-data').textContent).tools); } catch (e) { /* no tools */ }
  const byName = new Map(tools.filter(isObj).map((t) => [t.name, t]));
  let seq = 0;

  function schemaType(s) {
    if (!isObj(s)) return '';
    const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
    return t || '';
  }
  function panel(t) {
    const id = 'try' + (++seq);
    const input = isObj(t.input_schema) ? t.input_schema : {};
    const props = isObj(input.properties) ? input.properties : {};
    const required = new Set(arr(input.required));
    let f = '<h3>Try it</h3><form class="try" data-tool="' + esc(t.name) + '" data-out="' + id + '">';
    for (const [k, s] of Object.entries(props)) {
      const type = schemaType(s);
      const attrs = ' name="' + esc(k) + '" data-type="' + esc(type) + '"' + (required.has(k) ? ' required' : '');
      let field;
      if (isObj(s) && arr(s.enum).length) {
        field = '<select' + attrs + ' data-json="1"><option value="">(none)</option>' +
          s.enum.map((v) => '<option value="' + esc(JSON.stringify(v)) + '">' + esc(typeof v === 'string' ? v : JSON.stringify(v)) + '</option>').join('') + '</select>';
      } else if (type === 'boolean') {
        field = '<select' + attrs + ' data-json="1"><option value="">(none)</option><option value="true">true</option><option value="false">false</option></select>';
      } else if (type === 'integer' || type === 'number') {
        field = '<input type="number" step="any"' + attrs + '>';
      } else if (type === 'string') {
        field = '<input type="text" spellcheck="false" autocomplete="off"' + attrs + '>';
      } else {
        field = '<textarea rows="2" placeholder="JSON" data-json="1"' + attrs + '></textarea>';
      }
      f += '<label class="try-f"><span><code>' + esc(k) + '</code>' + (required.has(k) ? ' *' : '') +
        ' <span class="c">' + esc(type || 'any') + '</span></span>' + field + '</label>';
    }
    if (!Object.keys(props).length) f += '<p class="c">This tool takes no arguments.</p>';
    f += '<button type="submit" class="copy">Call ' + esc(t.name) + '</button></form>' +
      '<pre class="try-out" id="' + id + '" hidden aria-live="polite"></pre>';
    const div = document.createElement('div');
    div.className = 'try-panel';
    div.innerHTML = f;
    return div;
  }
  // Each open tool row shows its example call in a <pre>; put the form after it.
  function attach() {
    for (const pre of document.querySelectorAll('#panel-tools pre')) {
      const line = pre.closest('.copyline') || pre;
      if (line.dataset.try) continue;
      let call;
      try { call = JSON.parse(pre.textContent); } catch (e) { continue; }
      if (!isObj(call) || call.type !== 'portos_tool_call') continue;
      const t = byName.get(call.name);
      line.dataset.try = '1';
      if (t) line.after(panel(t));
    }
  }
  new MutationObserver(attach).observe(document.body, { childList: true, subtree: true });
  attach();

  document.addEventListener('submit', (ev) => {
    const form = ev.target.closest && ev.target.closest('form.try');
    if (!form) return;
    ev.preventDefault();
    const out = document.getElementById(form.dataset.out);
    const args = {};
    try {
      for (const el of form.querySelectorAll('[name]')) {
        const raw = el.value.trim();
        if (raw === '') continue;
        const type = el.dataset.type;
        if (el.dataset.json) args[el.name] = JSON.parse(raw);
        else if (type === 'integer' || type === 'number') args[el.name] = Number(raw);
        else args[el.name] = raw;
      }
    } catch (e) {
      out.hidden = false;
      out.textContent = 'Not JSON: ' + e.message;
      return;
    }
    const call = {
      type: 'portos_tool_call',
      requestId: 'explorer-' + Date.now().toString(36) + '-' + Math.random().toString(36).slice(2, 10),
      name: form.dataset.tool,
      version: 1,
      arguments: args,
    };
    out.hidden = false;
    delete out.dataset.status;
    out.textContent = 'Calling ' + call.name + ' (' + call.requestId + ')…';
    fetch(REGISTRY + '/call', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call) })
      .then((r) => r.text().then((text) => {
        let shown = text;
        try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON: shown as is */ }
        out.textContent = 'HTTP ' + r.status + '\n' + shown;
        out.dataset.status = String(r.status);
      }))
      .catch((e) => { out.textContent = 'Request failed: ' + e.message; out.dataset.status = 'error'; });
  });
})();
