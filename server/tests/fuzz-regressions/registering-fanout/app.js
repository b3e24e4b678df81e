const express = require('express');

const app = express();

// Every call of `stage` registers the same route and calls itself five more
// levels down, six times each: 6^7 runs that register nothing new.
function stage(n, msg) {
  if (n === 0) return;
  stage(n - 1, { path: msg.path, hop: n });
  stage(n - 1, { path: msg.path, hop: n });
  stage(n - 1, { path: msg.path, hop: n });
  stage(n - 1, { path: msg.path, hop: n });
  stage(n - 1, { path: msg.path, hop: n });
  stage(n - 1(app.get('/deep', (req, res) => res.send('deep'))), { path: msg.path, hop: n });
}

[1, 2, 3, 4].forEach((value) => stage(7, { path: 'nextPoint', value }));

module.exports = app;
