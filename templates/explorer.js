// Portolan API Explorer. Hand-written, no dependencies, no network.
// Reads the three embedded documents, builds one view per tab (items with a
// lowercase search haystack and facet values), filters synchronously on every
// keystroke and renders only the first PAGE matches (more on demand).
// State lives in the URL fragment: #tab=operations&q=…&method=GET&open=…
'use strict';
(function () {
  const PAGE = 100;
  const started = performance.now();
  const $ = (id) => document.getElementById(id);
  const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ESC[c]);
  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const arr = (v) => (Array.isArray(v) ? v : []);
  const fmt = (n) => n.toLocaleString('en-US');
  function data(id) {
    const el = $(id);
    if (!el) return null;
    try { return JSON.parse(el.textContent); } catch (e) { return null; }
  }
  const catalog = data('catalog-data');
  const eventsDoc = data('events-data');
  const toolsDoc = data('tools-data');

  // ---------- shared renderers ----------
  const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'ALL'];
  function methodBadge(m) { return '<span class="m m-' + esc(m) + '">' + esc(m) + '</span>'; }
  // `:id`, `:id?`, `*`, `*splat`, `{/:opt}` and OpenAPI `{id}` get highlighted.
  const PARAM_RE = /(\{[^}]*\}|:[A-Za-z_$][\w$]*\??(?:\([^)]*\))?|\*[\w$]*)/g;
  function hlPath(p) {
    return String(p).split(PARAM_RE).map((part, i) => (i % 2 ? '<b class="pp">' + mk(part) + '</b>' : mk(part))).join('');
  }
  // Event names: only `{placeholder}` parts are variable (`:` is a separator).
  function hlName(n) {
    return String(n).split(/(\{[^}]*\})/).map((part, i) => (i % 2 ? '<b class="pp">' + mk(part) + '</b>' : mk(part))).join('');
  }
  // The search words, marked in row text (escaped like esc).
  let marks = [];
  function mk(text) {
    text = String(text == null ? '' : text);
    if (!marks.length || !text) return esc(text);
    const low = text.toLowerCase();
    if (low.length !== text.length) return esc(text);
    const ranges = [];
    for (const t of marks) for (let i = low.indexOf(t); i >= 0; i = low.indexOf(t, i + t.length)) ranges.push([i, i + t.length]);
    if (!ranges.length) return esc(text);
    ranges.sort((a, b) => a[0] - b[0]);
    let out = '';
    let at = 0;
    for (const [a, b] of ranges) {
      if (b <= at) continue;
      const from = Math.max(a, at);
      out += esc(text.slice(at, from)) + '<mark>' + esc(text.slice(from, b)) + '</mark>';
      at = b;
    }
    return out + esc(text.slice(at));
  }
  function pill(text, cls) { return text ? '<span class="pill ' + esc(cls || text) + '">' + esc(text) + '</span>' : ''; }
  // "file:line" from a finding/site that has `at`, or `file` and `line`.
  function loc(x) {
    if (!x) return '';
    if (typeof x === 'string') return x;
    if (x.at) return typeof x.at === 'string' ? x.at : loc(x.at);
    if (x.file) return x.line != null ? x.file + ':' + x.line : x.file;
    return '';
  }
  const fileOf = (l) => String(l).replace(/:\d+(:\d+)?$/, '');
  let copySeq = 0;
  function copyBlock(text, label) {
    const id = 'cp' + (++copySeq);
    return '<div class="copyline"><pre id="' + id + '"><code>' + esc(text) + '</code></pre>' +
      '<button type="button" class="copy" data-copy="' + id + '" aria-label="Copy ' + esc(label) + '">Copy</button></div>';
  }
  function dl(pairs) {
    const rows = pairs.filter((p) => p[1] !== '' && p[1] != null);
    return rows.length ? '<dl>' + rows.map((p) => '<dt>' + esc(p[0]) + '</dt><dd>' + p[1] + '</dd>').join('') + '</dl>' : '';
  }
  const h3 = (t) => '<h3>' + esc(t) + '</h3>';

  // A schema wrapper ({schema, source, name, at}) or a bare JSON Schema.
  function unwrap(x) {
    if (!isObj(x)) return null;
    if (isObj(x.schema) && (x.source || x.at || x.name)) return { schema: x.schema, meta: x };
    return { schema: x, meta: null };
  }
  function typeText(s) {
    if (!isObj(s)) return s === true ? 'any' : s === false ? 'never' : '';
    if (s.$ref) return s.$ref;
    let t = Array.isArray(s.type) ? s.type.join(' | ') : s.type || '';
    if (!t && s.properties) t = 'object';
    if (t === 'array' && isObj(s.items)) t = typeText(s.items) + '[]';
    if (s.format) t += ' (' + s.format + ')';
    if (s.anyOf) t = t || 'any of';
    if (s.oneOf) t = t || 'one of';
    if (s.allOf) t = t || 'all of';
    return t || 'any';
  }
  function constraints(s) {
    if (!isObj(s)) return '';
    const c = [];
    if ('const' in s) c.push('= ' + JSON.stringify(s.const));
    if (Array.isArray(s.enum)) c.push('one of ' + s.enum.map((v) => JSON.stringify(v)).join(', '));
    for (const k of ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'multipleOf']) {
      if (k in s) c.push(k + ' ' + JSON.stringify(s[k]));
    }
    if ('default' in s) c.push('default ' + JSON.stringify(s.default));
    if (s.additionalProperties === false) c.push('no other keys');
    if (s.description) c.push(s.description);
    return c.join(' · ');
  }
  // A JSON Schema as a readable tree, plus the raw JSON on demand.
  function schemaTree(s, depth) {
    depth = depth || 0;
    if (!isObj(s) || depth > 8) return '';
    const out = [];
    const req = new Set(arr(s.required));
    const node = (name, sub, required) => {
      const c = constraints(sub);
      return '<li><span class="k">' + esc(name) + '</span>' + (required ? ' <span class="req">required</span>' : '') +
        ' <span class="t">' + esc(typeText(sub)) + '</span>' + (c ? ' <span class="c">' + esc(c) + '</span>' : '') +
        schemaTree(isObj(sub) && sub.type === 'array' && isObj(sub.items) ? sub.items : sub, depth + 1) + '</li>';
    };
    if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) out.push(node(k, v, req.has(k)));
    if (isObj(s.patternProperties)) for (const [k, v] of Object.entries(s.patternProperties)) out.push(node('/' + k + '/', v, false));
    if (isObj(s.additionalProperties)) out.push(node('*', s.additionalProperties, false));
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      arr(s[key]).forEach((v, i) => out.push(node(key + '[' + i + ']', v, false)));
    }
    if (Array.isArray(s.prefixItems)) s.prefixItems.forEach((v, i) => out.push(node('[' + i + ']', v, false)));
    return out.length ? '<ul class="tree">' + out.join('') + '</ul>' : '';
  }
  function schemaBlock(title, x) {
    const u = unwrap(x);
    if (!u) return '';
    const m = u.meta;
    const from = m ? [m.source, m.name, loc(m)].filter(Boolean).join(' · ') : '';
    const top = '<span class="t">' + esc(typeText(u.schema)) + '</span>' + (constraints(u.schema) ? ' <span class="c">' + esc(constraints(u.schema)) + '</span>' : '');
    return h3(title) + (from ? '<div class="c">from ' + esc(from) + '</div>' : '') + '<div>' + top + '</div>' +
      schemaTree(u.schema.type === 'array' && isObj(u.schema.items) ? u.schema.items : u.schema) +
      '<details><summary>JSON Schema</summary><pre><code>' + esc(JSON.stringify(u.schema, null, 2)) + '</code></pre></details>';
  }

  // An example value that satisfies the common constraints of a schema.
  function example(s, depth) {
    depth = depth || 0;
    if (!isObj(s) || depth > 6) return null;
    if ('const' in s) return s.const;
    if ('default' in s) return s.default;
    if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
    if ('example' in s) return s.example;
    if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
    const alt = s.anyOf || s.oneOf;
    if (Array.isArray(alt) && alt.length) return example(alt.find((b) => isObj(b) && b.type !== 'null') || alt[0], depth + 1);
    if (Array.isArray(s.allOf)) {
      const parts = s.allOf.map((b) => example(b, depth + 1));
      return parts.every(isObj) ? Object.assign({}, ...parts) : parts[0];
    }
    let t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') || s.type[0] : s.type;
    if (!t) t = s.properties ? 'object' : s.items ? 'array' : null;
    switch (t) {
      case 'object': {
        const out = {};
        const req = new Set(arr(s.required));
        for (const [k, v] of Object.entries(isObj(s.properties) ? s.properties : {})) {
          if (req.has(k) || !(isObj(v) && v.pattern)) out[k] = example(v, depth + 1);
        }
        return out;
      }
      case 'array': {
        const n = Math.min(Math.max(s.minItems || 1, 1), 3);
        return isObj(s.items) ? Array.from({ length: n }, () => example(s.items, depth + 1)) : [];
      }
      case 'string': {
        const byFormat = { 'date-time': '2026-01-01T00:00:00Z', date: '2026-01-01', time: '12:00:00Z', email: 'user@example.com',
          uuid: '00000000-0000-4000-8000-000000000000', uri: 'urn:example:1', hostname: 'example.com', ipv4: '192.0.2.1' };
        if (byFormat[s.format]) return byFormat[s.format];
        let v = 'string';
        if (s.minLength > v.length) v = v + 'x'.repeat(s.minLength - v.length);
        if (s.maxLength != null && v.length > s.maxLength) v = v.slice(0, s.maxLength);
        return v;
      }
      case 'integer': case 'number': {
        let v = 1;
        if (s.minimum != null) v = s.minimum;
        else if (s.exclusiveMinimum != null) v = s.exclusiveMinimum + 1;
        if (s.maximum != null && v > s.maximum) v = s.maximum;
        if (s.exclusiveMaximum != null && v >= s.exclusiveMaximum) v = s.exclusiveMaximum - 1;
        return t === 'integer' ? Math.ceil(v) : v;
      }
      case 'boolean': return false;
      default: return null;
    }
  }
  const shq = (s) => "'" + String(s).replace(/'/g, "'\\''") + "'";
  const dq = (s) => '"' + String(s).replace(/(["\\`$])/g, '\\$1') + '"';

  // ---------- findings (shared: the Findings tab and per-row sections) ----------
  const findings = [];
  for (const [origin, doc] of [['catalog', catalog], ['events', eventsDoc], ['tools', toolsDoc]]) {
    for (const f of arr(doc && doc.findings)) if (isObj(f)) findings.push({ f, origin });
  }
  const findingsByFile = new Map();
  for (const x of findings) {
    const file = x.f.file || fileOf(loc(x.f));
    if (!findingsByFile.has(file)) findingsByFile.set(file, []);
    findingsByFile.get(file).push(x.f);
  }
  // Findings about one event name the event in backquotes (`chat:typing`).
  const findingsByName = new Map();
  for (const x of findings) {
    const m = /`([^`]+)`/.exec(String(x.f.message || ''));
    if (!m) continue;
    if (!findingsByName.has(m[1])) findingsByName.set(m[1], []);
    findingsByName.get(m[1]).push(x.f);
  }
  function findingLine(f) {
    return '<span class="finding"><span class="code">' + esc(f.code) + '</span> <span class="loc">' + esc(loc(f)) + '</span> ' + esc(f.message) + '</span>';
  }
  function findingsFor(files) {
    const seen = new Set();
    const out = [];
    for (const file of files) {
      if (seen.has(file)) continue;
      seen.add(file);
      for (const f of findingsByFile.get(file) || []) out.push(findingLine(f));
    }
    return out.length ? h3('Findings in these files') + out.join('') : '';
  }

  // ---------- operations ----------
  const baseInput = $('base');
  function contractOf(o) { return isObj(o.contract) ? o.contract : {}; }
  function curlFor(o) {
    const c = contractOf(o);
    const base = baseInput.value.trim() || '$BASE';
    const method = o.method === 'ALL' ? 'GET' : o.method;
    const pathText = o.openApiPath || o.path;
    const body = unwrap(o.requestBody || c.body);
    const query = unwrap(o.query || c.query);
    let qs = '';
    if (query && isObj(query.schema.properties)) {
      const req = new Set(arr(query.schema.required));
      const ex = example(query.schema);
      const pairs = Object.keys(query.schema.properties).filter((k) => req.has(k)).map((k) => encodeURIComponent(k) + '=' + encodeURIComponent(typeof ex[k] === 'string' ? ex[k] : JSON.stringify(ex[k])));
      if (pairs.length) qs = '?' + pairs.join('&');
    }
    const parts = ['curl'];
    if (/[{}[\]]/.test(pathText)) parts.push('-g');
    if (method !== 'GET') parts.push('-X ' + method);
    parts.push(base === '$BASE' ? '"$BASE' + pathText.replace(/(["\\`$])/g, '\\$1') + qs + '"' : dq(base.replace(/\/+$/, '') + pathText + qs));
    if (/authenticated/.test(o.access || '')) parts.push('-H "Authorization: Bearer $TOKEN"');
    if (body) {
      parts.push("-H 'Content-Type: application/json'");
      parts.push('--data ' + shq(JSON.stringify(example(body.schema))));
    }
    return parts.join(' ');
  }
  function responsesOf(o) {
    const r = o.responses || contractOf(o).responses;
    if (Array.isArray(r)) return r.map((x) => ({ status: x.status, schema: x.schema, at: loc(x) }));
    if (isObj(r)) {
      return Object.entries(r).map(([status, x]) => {
        let schema = x;
        if (isObj(x) && isObj(x.content)) {
          const media = x.content['application/json'] || Object.values(x.content)[0];
          schema = media && media.schema;
        }
        return { status, schema, description: isObj(x) ? x.description : '' };
      });
    }
    return [];
  }
  function operationDetail(it) {
    const o = it.o;
    const c = contractOf(o);
    const locations = arr(o.locations).length ? arr(o.locations) : arr(o.sources);
    const mounts = arr(o.mounts).map((m) => '<code>' + esc(m.prefix) + '</code> <span class="loc">' + esc(loc(m)) + '</span>').join(' → ');
    const handler = isObj(o.handler) ? '<code>' + esc(o.handler.name) + '</code> <span class="loc">' + esc(loc(o.handler)) + '</span>' : esc(o.handler);
    let html = dl([
      ['Declared at', locations.map((l) => '<code>' + esc(l) + '</code>').join('<br>')],
      ['Handler', o.handler ? handler : ''],
      ['Mounted via', mounts],
      ['OpenAPI path', o.openApiPath && o.openApiPath !== o.path ? '<code>' + hlPath(o.openApiPath) + '</code>' : ''],
      ['Declared method', o.declaredMethod ? '<code>' + esc(o.declaredMethod) + '</code>' : ''],
      ['Only when', o.conditional ? '<code>' + esc(o.conditional) + '</code>' : ''],
      ['Reached', o.reached ? 'not from an entry: salvaged (<code>' + esc(o.reached) + '</code>)' + (String(o.path).indexOf('{?}') === 0 ? '; the mount prefix <code>{?}</code> is unknown' : '') : ''],
      ['Path', o.regex ? 'a regular expression; OpenAPI cannot express it exactly' : ''],
      ['Agent tool', o.tool ? '<a href="#' + esc(fragmentFor('tools', o.tool)) + '"><code>' + esc(o.tool) + '</code></a>' : ''],
      ['Exposed API', o.exposedApi ? '<code>' + esc(o.exposedApi) + '</code>' : ''],
      ['App', o.app ? '<code>' + esc(loc(o.app)) + '</code>' : ''],
      ['Domain', esc(o.domainLabel || o.domain)],
      ['Access', esc(o.access)],
      ['Side effect', esc(o.sideEffect)],
      ['Contract', esc(o.contractStatus)],
    ]);
    const rows = [];
    for (const p of arr(o.params)) {
      const notes = [p.optional ? 'optional' : 'required', p.wildcard ? 'multi-segment wildcard' : '', p.regex || p.pattern ? 'matches ' + (p.regex || p.pattern) : ''].filter(Boolean).join(', ');
      rows.push(['path', p.name, notes]);
    }
    const qSchema = unwrap(o.query || c.query);
    const qProps = qSchema && isObj(qSchema.schema.properties) ? qSchema.schema.properties : {};
    const qReq = new Set(qSchema ? arr(qSchema.schema.required) : []);
    for (const [k, v] of Object.entries(qProps)) rows.push(['query', k, (qReq.has(k) ? 'required' : 'optional') + ' · ' + typeText(v)]);
    for (const k of arr(o.queryRead || c.queryRead || c.query_read)) if (!(k in qProps)) rows.push(['query', k, 'read by the handler']);
    for (const k of arr(o.headersRead || c.headersRead || c.headers_read)) rows.push(['header', k, 'read by the handler']);
    html += h3('Parameters') + (rows.length
      ? '<table><thead><tr><th>in</th><th>name</th><th>notes</th></tr></thead><tbody>' +
        rows.map((r) => '<tr><td>' + esc(r[0]) + '</td><td><code>' + esc(r[1]) + '</code></td><td>' + esc(r[2]) + '</td></tr>').join('') + '</tbody></table>'
      : '<div class="c">none</div>');
    const mw = arr(o.middleware);
    html += h3('Middleware chain') + (mw.length || o.handler
      ? '<ol class="chain">' + mw.map((m) => '<li><code>' + esc(m) + '</code></li>').join('') + (isObj(o.handler) ? '<li class="h"><code>' + esc(o.handler.name) + '</code></li>' : '') + '</ol>'
      : '<div class="c">none</div>');
    html += schemaBlock('Request body', o.requestBody || c.body);
    html += schemaBlock('Query', o.query || c.query);
    html += schemaBlock('Path parameters schema', o.paramsSchema || c.params);
    const responses = responsesOf(o);
    if (responses.length) {
      html += h3('Responses') + responses.map((r) =>
        '<div><span class="pill ' + (Number(r.status) >= 400 ? 'bad' : 'ok') + '">' + esc(r.status) + '</span> ' +
        (r.description ? esc(r.description) + ' ' : '') + (r.at ? '<span class="loc">' + esc(r.at) + '</span>' : '') +
        (unwrap(r.schema) ? schemaTree(unwrap(r.schema).schema) + '<details><summary>JSON Schema</summary><pre><code>' + esc(JSON.stringify(unwrap(r.schema).schema, null, 2)) + '</code></pre></details>' : '') +
        '</div>').join('');
    } else {
      html += h3('Request and responses') + '<div class="c">No request or response schema is stated in the code for this operation.</div>';
    }
    html += findingsFor(locations.map(fileOf));
    html += h3('curl') + copyBlock(curlFor(o), 'curl command');
    html += '<div class="c"><a href="#' + esc(fragmentFor('operations', it.id)) + '">Link to this operation</a></div>';
    return html;
  }
  function operationRow(it) {
    const o = it.o;
    const first = arr(o.locations)[0] || arr(o.sources)[0] || '';
    const more = arr(o.locations).length > 1 ? ' +' + (arr(o.locations).length - 1) : '';
    return methodBadge(o.method) + '<span class="p">' + hlPath(o.path) + '</span><span class="s">' + mk(o.summary) + '</span>' +
      '<span class="meta">' + (o.reached ? pill('salvaged', 'warn') : '') + (o.conditional ? pill('conditional', 'warn') : '') + (o.tool ? pill('tool', 'ok') : '') + (o.exposedApi ? pill('exposed: ' + o.exposedApi, 'warn') : '') +
      pill(o.domainLabel || o.domain, 'dom') + pill(o.access, 'acc') +
      pill(o.sideEffect) + pill(o.contractStatus) + '<span class="loc">' + mk(first) + esc(more) + '</span></span>';
  }

  // ---------- events ----------
  function eventName(e) { return e.event || e.name || ''; }
  function directionOf(e) {
    const d = arr(e.directions);
    if (d.length > 1) return 'bidirectional';
    return d[0] || 'none';
  }
  const ARROW = { 'client-to-server': 'client → server', 'server-to-client': 'server → client', bidirectional: 'both ways', none: 'no direction' };
  function eventRow(it) {
    const e = it.o;
    const sites = arr(e.sites);
    const own = findingsByName.get(eventName(e)) || [];
    return '<span class="m">' + esc(e.namespace || '/') + '</span><span class="p">' + hlName(eventName(e)) + '</span><span class="s">' + mk(e.summary) + '</span>' +
      '<span class="meta">' + (e.lifecycle ? pill('lifecycle', 'warn') : '') + (e.namespaceAssumed ? pill('assumed namespace', 'warn') : '') + [...new Set(own.map((f) => f.code))].map((c) => pill(c, 'bad')).join('') + arr(e.directions).map((d) => pill(ARROW[d] || d, 'dir')).join('') +
      pill(e.domainLabel || e.domain, 'dom') + pill(e.contractStatus) + (sites.length ? '<span class="loc">' + esc(loc(sites[0])) + (sites.length > 1 ? ' +' + (sites.length - 1) : '') + '</span>' : '') + '</span>';
  }
  function eventDetail(it) {
    const e = it.o;
    let html = dl([
      ['Namespace', '<code>' + esc(e.namespace || '/') + '</code>'],
      ['Directions', esc(arr(e.directions).map((d) => ARROW[d] || d).join(', '))],
      ['Lifecycle', e.lifecycle ? 'reserved Socket.IO event, not API' : ''],
      ['Pattern', e.pattern ? 'the name has placeholders known only at run time' : ''],
      ['Reached', arr(e.sites).some((s) => s.reached) ? 'not from an entry: ' + (e.namespaceAssumed ? 'every site' : 'some sites') + ' charted from code nobody calls, with the namespace assumed (<code>' + esc(arr(e.sites).filter((s) => s.reached).map((s) => s.reached)[0]) + '</code>)' : ''],
      ['Rooms', arr(e.rooms).map((r) => '<code>' + esc(r) + '</code>').join(' ')],
      ['Domain', esc(e.domainLabel || e.domain)],
      ['Contract', esc(e.contractStatus)],
      ['Modeled', esc(arr(e.modeledDirections).join(', '))],
    ]);
    const sites = arr(e.sites);
    html += h3('Sites') + (sites.length
      ? '<table><thead><tr><th>where</th><th>side</th><th>kind</th><th>via</th><th>rooms</th><th>args</th><th>ack</th><th>reached</th></tr></thead><tbody>' +
        sites.map((s) => '<tr><td><code>' + esc(loc(s)) + '</code></td><td>' + esc(s.side) + '</td><td><code>' + esc(s.kind) + '</code></td><td>' +
          (s.via ? '<code>' + esc(s.via) + '</code>' : '') + '</td><td>' + esc(arr(s.rooms).join(', ')) + '</td><td>' + esc(arr(s.args).join(', ')) + '</td><td>' + (s.ack ? 'yes' : '') + '</td><td>' + (s.reached ? '<code>' + esc(s.reached) + '</code>' : '') + '</td></tr>').join('') +
        '</tbody></table>'
      : '<div class="c">none recorded</div>');
    const payloads = isObj(e.payloadSchemas) ? e.payloadSchemas : isObj(e.payload) ? e.payload : {};
    for (const [dir, s] of Object.entries(payloads)) html += schemaBlock('Payload, ' + (ARROW[dir] || dir), s);
    const acks = isObj(e.ackSchemas) ? e.ackSchemas : isObj(e.ack) ? e.ack : {};
    for (const [dir, s] of Object.entries(acks)) html += schemaBlock('Acknowledgement, ' + (ARROW[dir] || dir), s);
    if (!Object.keys(payloads).length && !Object.keys(acks).length) html += h3('Payload') + '<div class="c">No payload schema is stated in the code for this event.</div>';
    const own = findingsByName.get(eventName(e)) || [];
    if (own.length) html += h3('Findings') + own.map(findingLine).join('');
    html += '<div class="c"><a href="#' + esc(fragmentFor('events', it.id)) + '">Link to this event</a></div>';
    return html;
  }

  // ---------- tools ----------
  function envelope(t) {
    const name = t.name || t.providerName || 'tool';
    const input = isObj(t.input_schema) ? t.input_schema : isObj(t.inputSchema) ? t.inputSchema : null;
    const args = input ? example(input) : {};
    return {
      type: 'portos_tool_call',
      requestId: ('example-' + String(name).replace(/[^A-Za-z0-9._:-]/g, '-') + '-01').slice(0, 200),
      name,
      version: t.version != null ? t.version : 1,
      arguments: isObj(args) ? args : {},
    };
  }
  function bindingText(b) {
    if (!isObj(b)) return '';
    return [b.protocol, b.method, b.path].filter(Boolean).join(' ');
  }
  function toolRow(it) {
    const t = it.o;
    const p = isObj(t.policy) ? t.policy : {};
    return '<span class="m">v' + esc(t.version != null ? t.version : '?') + '</span><span class="p">' + mk(t.name) + '</span><span class="s">' + mk(t.description) + '</span>' +
      '<span class="meta">' + pill(p.sideEffect) + (p.idempotent ? pill('idempotent', 'ok') : '') + (p.async ? pill('async') : '') + pill(p.privacy) +
      '<span class="loc">' + esc(bindingText(t.binding)) + '</span></span>';
  }
  function toolDetail(it) {
    const t = it.o;
    const b = isObj(t.binding) ? t.binding : {};
    const opId = b.method && b.path ? opIds.get(b.method + ' ' + b.path) : null;
    let html = dl([
      ['Provider name', t.providerName ? '<code>' + esc(t.providerName) + '</code>' : ''],
      ['Binding', b.protocol ? esc(bindingText(b)) + (opId ? ' · <a href="#' + esc(fragmentFor('operations', opId)) + '">operation</a>' : '') : ''],
      ['Aliases', arr(t.aliases).map((a) => '<code>' + esc(a) + '</code>').join(' ')],
      ['Scopes', arr(t.scopes || (isObj(t.policy) && t.policy.scopes)).map((a) => '<code>' + esc(a) + '</code>').join(' ')],
    ]);
    if (isObj(t.policy)) {
      html += h3('Policy') + dl(Object.entries(t.policy).map(([k, v]) => [k, '<code>' + esc(typeof v === 'string' ? v : JSON.stringify(v)) + '</code>']));
    }
    html += schemaBlock('Input schema', t.input_schema || t.inputSchema);
    html += schemaBlock('Output schema', t.output_schema || t.outputSchema);
    const failures = arr(t.failures);
    if (failures.length) html += h3('Failures') + failures.map((f) => pill(f.status + ' ' + f.code, 'bad')).join(' ');
    html += h3('Example call (portos_tool_call)') + copyBlock(JSON.stringify(envelope(t), null, 2), 'example call');
    html += '<div class="c"><a href="#' + esc(fragmentFor('tools', it.id)) + '">Link to this tool</a></div>';
    return html;
  }

  // ---------- findings tab ----------
  function findingRow(it) {
    const f = it.o;
    return '<span class="m">' + esc(f.severity || it.origin) + '</span><span class="p"><span class="code">' + mk(f.code) + '</span></span><span class="s">' + mk(f.message) + '</span>' +
      '<span class="meta"><span class="loc">' + mk(loc(f)) + '</span></span>';
  }
  function findingDetail(it) {
    const f = it.o;
    const extra = Object.entries(f).filter(([k]) => !['code', 'file', 'line', 'message', 'at', 'severity', 'cause'].includes(k));
    const file = f.file || fileOf(loc(f));
    const related = opsItems.filter((x) => arr(x.o.locations).some((l) => fileOf(l) === file)).slice(0, 50);
    const rows = [['Code', '<code>' + esc(f.code) + '</code>'], ['Where', '<code>' + esc(loc(f)) + '</code>'], ['Message', esc(f.message)], ['Document', esc(it.origin)]];
    if (f.severity) rows.unshift(['Severity', esc(f.severity) + (f.cause && f.cause !== f.code ? ' · cause <code>' + esc(f.cause) + '</code>' : '')]);
    let html = dl(rows);
    if (extra.length) html += h3('Details') + '<pre><code>' + esc(JSON.stringify(Object.fromEntries(extra), null, 2)) + '</code></pre>';
    if (related.length) {
      html += h3('Operations declared in this file') + related.map((x) =>
        '<div><a href="#' + esc(fragmentFor('operations', x.id)) + '">' + esc(x.o.method + ' ' + x.o.path) + '</a></div>').join('');
    }
    return html;
  }

  // ---------- views ----------
  function uniqueIds(items, base) {
    const seen = new Map();
    for (const it of items) {
      const b = base(it);
      const n = (seen.get(b) || 0) + 1;
      seen.set(b, n);
      it.id = n > 1 ? b + ' #' + n : b;
    }
  }
  const hay = (parts) => parts.filter((p) => p != null && p !== '').join('\n').toLowerCase();

  const domainLabels = new Map(arr(catalog && catalog.domains).map((d) => [d.id, d.label]));
  const opsItems = arr(catalog && catalog.operations).filter(isObj).map((o) => ({
    o,
    hay: hay([o.method, o.path, o.summary, o.domain, o.domainLabel, arr(o.middleware).join('\n'), arr(o.locations).join('\n'), arr(o.sources).join('\n'), isObj(o.handler) ? o.handler.name : '']),
    f: [o.method, o.domain, o.access, o.sideEffect, o.contractStatus],
  }));
  uniqueIds(opsItems, (it) => it.o.method + ' ' + it.o.path);
  const opIds = new Map(opsItems.map((it) => [it.o.method + ' ' + it.o.path, it.id]));

  // Lifecycle events (`connect`, …) are listed apart in events.json; here they
  // are rows too, marked, with a facet to hide them.
  const lifecycle = arr(eventsDoc && eventsDoc.lifecycleEvents).filter(isObj).map((e) => Object.assign({ lifecycle: true }, e));
  const evItems = arr(eventsDoc && eventsDoc.events).filter(isObj).concat(lifecycle).map((e) => ({
    o: e,
    hay: hay([eventName(e), e.namespace, e.summary, e.domain, e.domainLabel, arr(e.directions).join(' '), arr(e.rooms).join('\n'), arr(e.sites).map((s) => loc(s) + ' ' + (s.via || '')).join('\n')]),
    f: [directionOf(e), e.namespace || '/', e.domain, e.contractStatus, e.lifecycle ? 'lifecycle' : 'api',
      ((findingsByName.get(eventName(e)) || [])[0] || { code: 'no finding' }).code],
  }));
  uniqueIds(evItems, (it) => (it.o.namespace || '/') + ' ' + eventName(it.o));

  const toolItems = arr(toolsDoc && toolsDoc.tools).filter(isObj).map((t) => {
    const p = isObj(t.policy) ? t.policy : {};
    return {
      o: t,
      hay: hay([t.name, t.providerName, t.description, bindingText(t.binding), arr(t.aliases).join(' '), p.sideEffect]),
      f: [p.sideEffect, isObj(t.binding) ? t.binding.protocol : undefined],
    };
  });
  uniqueIds(toolItems, (it) => String(it.o.name));

  // Errors first, then warnings, then info; within a severity, the documents' order.
  const SEVERITY_ORDER = ['error', 'warning', 'info'];
  const rank = (f) => { const i = SEVERITY_ORDER.indexOf(f.severity); return i < 0 ? SEVERITY_ORDER.length : i; };
  const findingItems = findings.map((x, i) => ({ x, i }))
    .sort((a, b) => rank(a.x.f) - rank(b.x.f) || a.i - b.i)
    .map(({ x }) => ({
      o: x.f,
      origin: x.origin,
      hay: hay([x.f.code, x.f.severity, x.f.cause, x.f.group, loc(x.f), x.f.message]),
      f: [x.f.severity || 'unrated', x.f.cause || x.f.code, x.f.code, x.origin],
    }));
  uniqueIds(findingItems, (it) => it.o.code + ' ' + loc(it.o));

  const byOrder = (order) => (a, b) => {
    const ia = order.indexOf(a); const ib = order.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || (a < b ? -1 : a > b ? 1 : 0);
  };
  const views = {
    operations: {
      noun: 'operations', items: opsItems, row: operationRow, detail: operationDetail,
      missing: catalog ? 'catalog.json lists no HTTP operations.' : 'No catalog.json was embedded in this page.',
      facets: [
        { key: 'method', label: 'Method', sort: byOrder(METHOD_ORDER) },
        { key: 'domain', label: 'Domain', text: (v) => domainLabels.get(v) || v },
        { key: 'access', label: 'Access' },
        { key: 'side', label: 'Side effect', sort: byOrder(['read', 'write', 'destructive', 'process-control']) },
        { key: 'contract', label: 'Contract', sort: byOrder(['modeled', 'generated']) },
      ],
    },
    events: {
      noun: 'events', items: evItems, row: eventRow, detail: eventDetail,
      aside: (it) => it.o.lifecycle === true, asideNoun: 'lifecycle events',
      missing: eventsDoc ? 'events.json lists no Socket.IO events: none were found in the code.' : 'No events.json was produced for this project, so no Socket.IO events are shown.',
      facets: [
        { key: 'direction', label: 'Direction', text: (v) => ARROW[v] || v },
        { key: 'namespace', label: 'Namespace' },
        { key: 'domain', label: 'Domain' },
        { key: 'contract', label: 'Contract' },
        { key: 'kind', label: 'Kind' },
        { key: 'check', label: 'Check' },
      ],
    },
    tools: {
      noun: 'tools', items: toolItems, row: toolRow, detail: toolDetail,
      missing: toolsDoc ? 'tools.min.json defines no tools.' : 'No tools.min.json was produced for this project, so no agent tools are shown.',
      facets: [
        { key: 'side', label: 'Side effect' },
        { key: 'protocol', label: 'Binding' },
      ],
    },
    findings: {
      noun: 'findings', items: findingItems, row: findingRow, detail: findingDetail,
      missing: 'No findings: the analyzer resolved everything it saw.',
      facets: [
        { key: 'severity', label: 'Severity', sort: byOrder(SEVERITY_ORDER) },
        { key: 'cause', label: 'Cause' },
        { key: 'code', label: 'Code' },
        { key: 'origin', label: 'Document' },
      ],
    },
  };
  const TABS = Object.keys(views);
  const servers = arr(eventsDoc && eventsDoc.socketServers).filter(isObj);
  if (servers.length) {
    $('count-events').insertAdjacentHTML('beforebegin', '<p class="c">Socket.IO ' + (servers.length > 1 ? 'servers' : 'server') + ': ' +
      servers.map((x) => '<code>' + esc(x.path || '/socket.io') + '</code> at <span class="loc">' + esc(loc(x)) + '</span>' +
        (arr(x.namespaces).length ? ', namespaces ' + arr(x.namespaces).map((n) => '<code>' + esc(n) + '</code>').join(' ') : '')).join('; ') + '</p>');
  }
  const state = { tab: 'operations', q: '' };

  for (const name of TABS) {
    const v = views[name];
    v.name = name;
    v.filters = v.facets.map(() => '');
    v.open = null;
    v.limit = PAGE;
    v.matches = [];
    v.list = $('list-' + name);
    v.count = $('count-' + name);
    v.more = $('more-' + name);
    v.badge = $('n-' + name);
    v.index = new Map(v.items.map((it, i) => [it.id, i]));
    // Facet values compare as strings (the fragment holds strings); '' is "none".
    for (const it of v.items) it.f = it.f.map((x) => (x == null ? '' : String(x)));
    // One select per facet, options in a stable order with live counts.
    const box = $('filters-' + name);
    v.selects = v.facets.map((f, k) => {
      const values = [...new Set(v.items.map((it) => it.f[k]).filter((x) => x != null && x !== ''))];
      values.sort(f.sort || ((a, b) => { const ta = (f.text ? f.text(a) : a).toLowerCase(); const tb = (f.text ? f.text(b) : b).toLowerCase(); return ta < tb ? -1 : ta > tb ? 1 : 0; }));
      f.values = values;
      const label = document.createElement('label');
      const sel = document.createElement('select');
      sel.id = 'f-' + name + '-' + f.key;
      sel.dataset.k = k;
      sel.disabled = values.length === 0;
      sel.add(new Option('All', ''));
      for (const val of values) sel.add(new Option(f.text ? f.text(val) : val, val));
      label.append(f.label + ' ', sel);
      box.append(label);
      for (const ev of ['focus', 'pointerdown']) sel.addEventListener(ev, () => renderFacet(v, k, true));
      sel.addEventListener('change', () => { v.filters[k] = sel.value; v.limit = PAGE; refresh(); writeHash(); });
      return sel;
    });
    const reset = document.createElement('button');
    reset.type = 'button';
    reset.className = 'reset';
    reset.textContent = 'Clear filters';
    reset.addEventListener('click', () => { v.filters = v.facets.map(() => ''); qInput.value = ''; state.q = ''; v.limit = PAGE; refresh(); writeHash(); qInput.focus(); });
    box.append(reset);
    v.more.addEventListener('click', () => { v.limit += PAGE; render(v); });
  }

  // Filter one view: matches, and per facet the counts under every other filter.
  function compute(v, tokens) {
    const nf = v.facets.length;
    const counts = v.facets.map(() => new Map());
    const totals = new Array(nf).fill(0);
    const matches = [];
    const want = v.filters;
    const items = v.items;
    const nt = tokens.length;
    outer: for (let i = 0; i < items.length; i++) {
      const it = items[i];
      for (let t = 0; t < nt; t++) if (it.hay.indexOf(tokens[t]) < 0) continue outer;
      let miss = -1;
      let misses = 0;
      for (let k = 0; k < nf; k++) {
        if (want[k] !== '' && it.f[k] !== want[k]) { misses++; miss = k; if (misses > 1) break; }
      }
      if (misses === 0) {
        matches.push(it);
        for (let k = 0; k < nf; k++) { const c = counts[k]; c.set(it.f[k], (c.get(it.f[k]) || 0) + 1); totals[k]++; }
      } else if (misses === 1) {
        const c = counts[miss];
        c.set(it.f[miss], (c.get(it.f[miss]) || 0) + 1);
        totals[miss]++;
      }
    }
    v.matches = matches;
    v.counts = counts;
    v.totals = totals;
  }
  // A closed select shows only its chosen option, so long option lists get
  // their counts when the user reaches for them (focus, pointer), short ones now.
  const EAGER_OPTIONS = 16;
  function renderFacet(v, k, all) {
    const sel = v.selects[k];
    const f = v.facets[k];
    const opts = sel.options;
    const total = 'All (' + fmt(v.totals[k]) + ')';
    if (opts[0].text !== total) opts[0].text = total;
    for (let j = 1; j < opts.length; j++) {
      if (!all && !opts[j].selected) continue;
      const val = f.values[j - 1];
      const text = (f.text ? f.text(val) : val) + ' (' + fmt(v.counts[k].get(val) || 0) + ')';
      if (opts[j].text !== text) opts[j].text = text;
    }
  }
  function renderFacets(v) {
    v.selects.forEach((sel, k) => {
      if (sel.value !== v.filters[k]) sel.value = v.filters[k];
      renderFacet(v, k, sel.options.length <= EAGER_OPTIONS);
    });
  }
  function rowHtml(v, it) {
    const i = v.index.get(it.id);
    const open = v.open === it.id;
    // Unmarked rows are built once; marked ones per render (only visible rows).
    let head;
    if (marks.length) head = v.row(it);
    else head = it.html === undefined ? (it.html = v.row(it)) : it.html;
    return '<li class="row' + (open ? ' open' : '') + '" data-i="' + i + '"><button type="button" class="rh" id="h-' + v.name + '-' + i + '" aria-expanded="' + open +
      (open ? '" aria-controls="d-' + v.name + '-' + i : '') + '">' + head + '</button>' + (open ? detailHtml(v, it, i) : '') + '</li>';
  }
  function detailHtml(v, it, i) {
    return '<div class="rd" id="d-' + v.name + '-' + i + '" role="region" aria-labelledby="h-' + v.name + '-' + i + '">' + v.detail(it) + '</div>';
  }
  // The rows of `list` that count as the view's items (not set aside).
  function main(v, list) { return v.aside ? list.filter((it) => !v.aside(it)).length : list.length; }
  function render(v) {
    renderFacets(v);
    const n = v.matches.length;
    const total = v.items.length;
    const shown = Math.min(n, v.limit);
    v.count.dataset.count = n;
    v.count.dataset.shown = shown;
    const aside = v.aside ? total - main(v, v.items) : 0;
    v.count.textContent = total === 0 ? '' : n === total ? fmt(total - aside) + ' ' + v.noun + (aside ? ' and ' + fmt(aside) + ' ' + v.asideNoun : '') + (shown < n ? ', showing ' + fmt(shown) : '')
      : fmt(n) + ' of ' + fmt(total) + ' ' + (aside ? 'rows' : v.noun) + ' match' + (shown < n ? ', showing ' + fmt(shown) : '');
    if (total === 0) {
      v.list.innerHTML = '<li class="empty">' + esc(v.missing) + '</li>';
    } else if (n === 0) {
      v.list.innerHTML = '<li class="empty">Nothing matches. Change the search or clear the filters.</li>';
    } else {
      let html = '';
      for (let j = 0; j < shown; j++) html += rowHtml(v, v.matches[j]);
      v.list.innerHTML = html;
    }
    v.more.hidden = shown >= n;
    if (shown < n) v.more.textContent = 'Show ' + fmt(Math.min(PAGE, n - shown)) + ' more (' + fmt(n - shown) + ' not shown)';
  }
  function tokens() { return state.q.toLowerCase().split(/\s+/).filter(Boolean); }
  // Recompute every tab (for the tab badges) and redraw the visible one.
  function computeAll() {
    const t = tokens();
    marks = t;
    for (const name of TABS) {
      const v = views[name];
      compute(v, t);
      // Rows set aside (lifecycle events) are not counted in the badge, so it
      // shows the number the summary card and events.json's stats show.
      const [m, all] = [main(v, v.matches), main(v, v.items)];
      v.badge.textContent = all ? (v.matches.length === v.items.length ? fmt(all) : fmt(m) + '/' + fmt(all)) : '0';
    }
  }
  function refresh() {
    computeAll();
    render(views[state.tab]);
  }

  // ---------- open/close ----------
  function toggle(v, id, focus) {
    const prev = v.open;
    v.open = prev === id ? null : id;
    for (const oid of [prev, v.open]) {
      if (oid === null) continue;
      const i = v.index.get(oid);
      const li = v.list.querySelector('li[data-i="' + i + '"]');
      if (!li) continue;
      const open = v.open === oid;
      li.classList.toggle('open', open);
      li.firstChild.setAttribute('aria-expanded', String(open));
      if (open) li.firstChild.setAttribute('aria-controls', 'd-' + v.name + '-' + i);
      else li.firstChild.removeAttribute('aria-controls');
      const d = li.querySelector('.rd');
      if (d) d.remove();
      if (open) li.insertAdjacentHTML('beforeend', detailHtml(v, v.items[i], i));
      if (open && focus) li.firstChild.focus();
    }
    writeHash();
  }

  // ---------- URL fragment ----------
  const enc = (s) => encodeURIComponent(s).replace(/%2F/gi, '/').replace(/%3A/gi, ':').replace(/%20/g, '+').replace(/%40/g, '@');
  function fragmentFor(tab, open) { return 'tab=' + tab + '&open=' + enc(open); }
  let writing = false;
  function writeHash() {
    const v = views[state.tab];
    const parts = ['tab=' + state.tab];
    if (state.q) parts.push('q=' + enc(state.q));
    v.facets.forEach((f, k) => { if (v.filters[k]) parts.push(f.key + '=' + enc(v.filters[k])); });
    if (v.open !== null) parts.push('open=' + enc(v.open));
    const hash = '#' + parts.join('&');
    if (location.hash === hash) return;
    try {
      history.replaceState(null, '', hash);
    } catch (e) {
      writing = true;
      location.replace(hash);
    }
  }
  function readHash() {
    const p = new URLSearchParams(location.hash.replace(/^#/, ''));
    const tab = p.get('tab');
    state.tab = TABS.includes(tab) ? tab : 'operations';
    state.q = p.get('q') || '';
    const v = views[state.tab];
    v.filters = v.facets.map((f) => p.get(f.key) || '');
    const open = p.get('open');
    v.open = open !== null && v.index.has(open) ? open : null;
    v.limit = PAGE;
    if (v.open !== null) {
      // A deep link to a row wins over filters that would hide it.
      const it = v.items[v.index.get(v.open)];
      const t = tokens();
      if (!t.every((tok) => it.hay.includes(tok))) state.q = '';
      v.facets.forEach((f, k) => { if (v.filters[k] && it.f[k] !== v.filters[k]) v.filters[k] = ''; });
    }
    qInput.value = state.q;
    showTab(state.tab, false);
    computeAll();
    if (v.open !== null) {
      // Page far enough to show the linked row.
      const at = v.matches.findIndex((it) => it.id === v.open);
      if (at >= v.limit) v.limit = Math.ceil((at + 1) / PAGE) * PAGE;
    }
    render(v);
    if (v.open !== null) {
      const li = v.list.querySelector('li.open');
      if (li) { li.scrollIntoView({ block: 'start' }); li.firstChild.focus({ preventScroll: true }); }
    }
  }

  // ---------- tabs, search, keyboard ----------
  const qInput = $('q');
  function showTab(name, write) {
    state.tab = name;
    for (const t of TABS) {
      const sel = t === name;
      const btn = $('tab-' + t);
      btn.setAttribute('aria-selected', String(sel));
      btn.tabIndex = sel ? 0 : -1;
      $('panel-' + t).hidden = !sel;
    }
    if (write !== false) { render(views[name]); writeHash(); }
  }
  document.querySelector('.tabs').addEventListener('click', (ev) => {
    const b = ev.target.closest('[role=tab]');
    if (b) showTab(b.dataset.tab);
  });
  document.querySelector('.tabs').addEventListener('keydown', (ev) => {
    const i = TABS.indexOf(state.tab);
    let j = -1;
    if (ev.key === 'ArrowRight') j = (i + 1) % TABS.length;
    else if (ev.key === 'ArrowLeft') j = (i + TABS.length - 1) % TABS.length;
    else if (ev.key === 'Home') j = 0;
    else if (ev.key === 'End') j = TABS.length - 1;
    if (j < 0) return;
    ev.preventDefault();
    showTab(TABS[j]);
    $('tab-' + TABS[j]).focus();
  });
  qInput.addEventListener('input', () => {
    state.q = qInput.value;
    for (const name of TABS) views[name].limit = PAGE;
    refresh();
    writeHash();
  });
  qInput.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') {
      if (qInput.value) { qInput.value = ''; qInput.dispatchEvent(new Event('input')); } else qInput.blur();
    } else if (ev.key === 'ArrowDown' || ev.key === 'Enter') {
      const first = views[state.tab].list.querySelector('.rh');
      if (first) { ev.preventDefault(); first.focus(); }
    }
  });
  for (const name of TABS) {
    const v = views[name];
    v.list.addEventListener('click', (ev) => {
      const copy = ev.target.closest('[data-copy]');
      if (copy) { copyText(copy); return; }
      const h = ev.target.closest('.rh');
      if (h) toggle(v, v.items[Number(h.parentNode.dataset.i)].id, false);
    });
    v.list.addEventListener('keydown', (ev) => {
      const h = ev.target.closest('.rh');
      if (!h) return;
      const rows = [...v.list.querySelectorAll('.rh')];
      const i = rows.indexOf(h);
      let next = null;
      if (ev.key === 'ArrowDown' || ev.key === 'j') next = rows[i + 1];
      else if (ev.key === 'ArrowUp' || ev.key === 'k') next = i > 0 ? rows[i - 1] : qInput;
      else if (ev.key === 'Home') next = rows[0];
      else if (ev.key === 'End') next = rows[rows.length - 1];
      else if (ev.key === 'Escape' && v.open !== null) { toggle(v, v.open, false); return; } else return;
      ev.preventDefault();
      if (next) next.focus();
      else if (ev.key === 'ArrowDown' && !v.more.hidden) { v.more.click(); const again = v.list.querySelectorAll('.rh')[i + 1]; if (again) again.focus(); }
    });
  }
  document.addEventListener('keydown', (ev) => {
    if (ev.key !== '/' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
    ev.preventDefault();
    qInput.focus();
    qInput.select();
  });
  function copyText(btn) {
    const text = $(btn.dataset.copy).textContent;
    const done = () => { btn.textContent = 'Copied'; setTimeout(() => { btn.textContent = 'Copy'; }, 1500); };
    const fallback = () => {
      const ta = document.createElement('textarea');
      ta.value = text;
      document.body.append(ta);
      ta.select();
      try { document.execCommand('copy'); done(); } catch (e) { /* selection stays for manual copy */ }
      ta.remove();
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
    else fallback();
  }
  baseInput.addEventListener('change', () => {
    // curl lines are built when a row opens; rebuild the open one.
    const v = views[state.tab];
    if (v.open !== null) { const id = v.open; v.open = null; toggle(v, id, false); }
  });
  window.addEventListener('hashchange', () => {
    if (writing) { writing = false; return; }
    // A plain in-page anchor (#q) is not state.
    if (location.hash.length > 1 && !location.hash.includes('=')) return;
    readHash();
  });
  document.querySelector('.skip').addEventListener('click', (ev) => { ev.preventDefault(); qInput.focus(); });

  readHash();
  // Ready: everything is drawn and the handlers are attached.
  document.documentElement.dataset.ready = String(Math.round(performance.now()));
  document.documentElement.dataset.initMs = String(Math.round(performance.now() - started));
})();
