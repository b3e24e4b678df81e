// The anchor of the serve load test: a minimal Node `http` server that serves
// one file's bytes with an ETag and answers a matching If-None-Match with 304,
// which is what PortOS does today at best (it sets no ETag on /api/api-docs/*).
// Usage: node node-anchor.mjs FILE PORT
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

const [file, port] = process.argv.slice(2);
const body = readFileSync(file);
const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
createServer((req, res) => {
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ETag: etag, 'Cache-Control': 'private, no-cache' });
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json', ETag: etag, 'Cache-Control': 'private, no-cache' });
  res.end(body);
}).listen(Number(port), '127.0.0.1', () => console.log(`anchor on 127.0.0.1:${port} (${etag})`));
