#!/usr/bin/env node
// Consumer check of `portolan serve`'s MCP endpoint with the official client
// (@modelcontextprotocol/sdk, pinned in package.json). Starts `portolan serve
// tests/projects/harbor` with `[server.mcp] page_size = 2` (so tools/list
// really pages), connects over Streamable HTTP, checks the negotiated
// version, lists the tools across pages and compares them with the manifest,
// calls `catalog_search` and a failing tool (`berths_get`: HTTP-bound, no
// upstream configured) and sees `isError`, and checks that a foreign Origin
// and a client that is not on loopback (this machine's own non-loopback
// address, when it has one) are refused. No request leaves the machine.
//
//   node tests/consumers/mcp-client.mjs PORTOLAN_BINARY
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const bin = process.argv[2];
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
let step = 'setup';
let serve;
function check(cond, msg) { if (!cond) throw new Error(msg); }

async function main() {
  check(bin && fs.existsSync(bin), `give the portolan binary (got ${bin})`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'portolan-mcp-'));

  step = 'start portolan serve';
  fs.writeFileSync(path.join(tmp, 'portolan.toml'), '[server.mcp]\npage_size = 2\n');
  // Listening on every interface, so a client can also come from a non-loopback address.
  serve = spawn(bin, ['serve', path.join(root, 'tests/projects/harbor'), '--config', path.join(tmp, 'portolan.toml'),
    '--listen', '0.0.0.0:0', '--data-dir', path.join(tmp, 'data')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  serve.stderr.on('data', (d) => { log += d; });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no banner within 120 s: ' + out + log)), 120000);
    serve.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/portolan serve: http:\/\/[^/]+:(\d+)\//);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    serve.on('exit', (c) => reject(new Error(`serve exited ${c}: ${log}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const endpoint = new URL(`${base}/api/agent-context/mcp`);

  step = 'connect and negotiate';
  const client = new Client({ name: 'portolan-consumer-check', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(endpoint);
  await client.connect(transport);
  const server = client.getServerVersion();
  check(server?.name === 'portolan', `serverInfo.name: ${JSON.stringify(server)}`);
  check(['2025-03-26', '2025-06-18', '2025-11-25'].includes(transport.protocolVersion),
    `negotiated version ${transport.protocolVersion}`);
  check(client.getServerCapabilities()?.tools, 'the server announces tools');
  await client.ping();
  console.log(`connected: ${server.name} ${server.version}, protocol ${transport.protocolVersion}`);

  step = 'list tools across pages';
  const names = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    check(page.tools.length > 0 && page.tools.length <= 2, `page size ${page.tools.length}`);
    for (const t of page.tools) {
      check(t.annotations && typeof t.annotations.readOnlyHint === 'boolean', `${t.name} has annotations`);
      names.push(t.name);
    }
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor);
  check(pages >= 2, `only ${pages} page(s)`);
  check(new Set(names).size === names.length, `a tool listed twice: ${names}`);
  const manifest = await (await fetch(`${base}/api/agent-context/manifest`)).json();
  check(manifest.enabled === true, 'manifest: enabled');
  check(JSON.stringify(manifest.tools.map((t) => t.name)) === JSON.stringify(names),
    `manifest tools ${manifest.tools.map((t) => t.name)} != listed ${names}`);
  check(names.includes('catalog_search') && names.includes('berths_get'), `tools: ${names}`);
  console.log(`tools/list: ${names.length} tools in ${pages} pages`);

  step = 'call catalog_search';
  const found = await client.callTool({ name: 'catalog_search', arguments: { query: 'berths', limit: 3 } });
  check(!found.isError, `catalog_search failed: ${JSON.stringify(found)}`);
  check(found.structuredContent?.state === 'completed', `state: ${JSON.stringify(found.structuredContent)}`);
  check(found.structuredContent.result.count > 0, 'catalog_search found nothing');
  check(JSON.parse(found.content[0].text).requestId === found.structuredContent.requestId, 'text = structuredContent');

  step = 'call a failing tool';
  const failed = await client.callTool({ name: 'berths_get', arguments: { berthId: 'A-01' } });
  check(failed.isError === true, `berths_get without an upstream: ${JSON.stringify(failed)}`);
  check(failed.structuredContent?.code === 'TOOL_UNAVAILABLE', `code: ${JSON.stringify(failed.structuredContent)}`);
  const invalid = await client.callTool({ name: 'catalog_search', arguments: { query: '', limit: 1000 } });
  check(invalid.isError === true && invalid.structuredContent.code === 'TOOL_VALIDATION_ERROR',
    `invalid arguments: ${JSON.stringify(invalid)}`);
  console.log(`failing calls: ${failed.structuredContent.code}, ${invalid.structuredContent.code} (isError)`);
  await client.close();

  step = 'a foreign Origin is refused';
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const foreign = await fetch(endpoint, { method: 'POST', headers: { ...headers, origin: 'http://evil.example' }, body: ping });
  check(foreign.status === 403, `foreign origin: ${foreign.status}`);
  check((await foreign.json()).code === 'AGENT_CONTEXT_ORIGIN_REJECTED', 'foreign origin code');
  // The official client with that Origin fails to connect too.
  const refused = new Client({ name: 'portolan-consumer-check', version: '1.0.0' });
  let connected = true;
  try {
    await refused.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { origin: 'http://evil.example' } } }));
  } catch {
    connected = false;
  }
  check(!connected, 'the client connected with a foreign Origin');

  step = 'a client off loopback is refused';
  const own = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
  if (own) {
    const remote = await fetch(`http://${own.address}:${port}/api/agent-context/mcp`, { method: 'POST', headers, body: ping });
    check(remote.status === 403, `from ${own.address}: ${remote.status}`);
    check((await remote.json()).code === 'AGENT_CONTEXT_LOCAL_ONLY', 'off-loopback code');
    console.log(`refused: foreign Origin (403 AGENT_CONTEXT_ORIGIN_REJECTED), client at ${own.address} (403 AGENT_CONTEXT_LOCAL_ONLY)`);
  } else {
    console.log('refused: foreign Origin; no non-loopback interface here, the off-loopback check is skipped');
  }
}

main().then(
  () => { serve?.kill('SIGTERM'); console.log('mcp-client: ok'); },
  (e) => { serve?.kill('SIGTERM'); console.error(`mcp-client: FAIL at "${step}": ${e.stack || e}`); process.exit(1); },
);
