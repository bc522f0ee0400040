// An independent MCP client for pinki's end-to-end test (mcp/e2e_test.go):
// it drives the test server with the TypeScript SDK, either the v1 package
// @modelcontextprotocol/sdk or the v2 client package @modelcontextprotocol/client
// (the one that speaks protocol revision 2026-07-28), over stdio or
// streamable HTTP.
//
// The test copies this file next to a temporary node_modules and runs
//
//   node client.mjs '{"pkg":"sdk"|"client","transport":"stdio"|"http",
//                     "command":…,"args":[…],"url":…,"token":…,"version":…}'
//
// where version is the revision the client offers: "" for the package's
// default, a 2025 revision offered alone, a 2026 revision pinned (no
// fallback), or "auto" to negotiate the newest with fallback (v2 only). It lists the tools, makes and resolves a
// promise, gets refusals as tool errors, reads the briefing, and prints one
// JSON line summarising what it saw. Any failed expectation exits 1.

const cfg = JSON.parse(process.argv[2]);

function fail(msg) {
  console.error(`e2e client (${cfg.pkg}, ${cfg.transport}, ${cfg.version || 'default'}): ${msg}`);
  process.exit(1);
}

function expect(cond, msg) {
  if (!cond) fail(msg);
}

const text = (res) => (res.content && res.content[0] && res.content[0].text) || '';

async function load() {
  if (cfg.pkg === 'sdk') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return { Client, StdioClientTransport, StreamableHTTPClientTransport };
  }
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  return { Client, StdioClientTransport, StreamableHTTPClientTransport };
}

// watch records the protocolVersion of the initialize result passing
// through a transport (the v1 client does not expose what it negotiated).
function watch(transport, seen) {
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (fn) => {
      handler = fn && ((msg, extra) => {
        if (msg && msg.result && typeof msg.result.protocolVersion === 'string') seen.version = msg.result.protocolVersion;
        return fn(msg, extra);
      });
    },
  });
}

async function main() {
  const { Client, StdioClientTransport, StreamableHTTPClientTransport } = await load();
  const transport = cfg.transport === 'stdio'
    ? new StdioClientTransport({ command: cfg.command, args: cfg.args, stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers: { Authorization: `Bearer ${cfg.token}` } } });
  const seen = {};
  watch(transport, seen);

  const options = {};
  if (cfg.pkg === 'client' && cfg.version === 'auto') options.versionNegotiation = { mode: 'auto' };
  else if (cfg.pkg === 'client' && cfg.version >= '2026-07-28') options.versionNegotiation = { mode: { pin: cfg.version } };
  else if (cfg.pkg === 'client' && cfg.version) options.supportedProtocolVersions = [cfg.version];
  const client = new Client({ name: `pinki-e2e-${cfg.pkg}`, version: '0.0.0' }, options);
  await client.connect(transport);
  const negotiated = (client.getNegotiatedProtocolVersion && client.getNegotiatedProtocolVersion()) || seen.version;

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  for (const n of ['make_promise', 'resolve', 'prime', 'list', 'show']) expect(names.includes(n), `tool ${n} is missing from ${names}`);
  for (const t of tools) expect(t.inputSchema && t.outputSchema && t.description, `tool ${t.name} lacks a schema or a description`);

  const made = await client.callTool({ name: 'make_promise', arguments: { promise: 'answer the e2e client', to: 'desk/b', until: '+1h' } });
  expect(!made.isError, `make_promise refused: ${text(made)}`);
  const id = made.structuredContent.id;
  expect(/^pnk_[0-9a-f]{6,}$/.test(id) && made.structuredContent.state === 'detached', `make_promise returned ${JSON.stringify(made.structuredContent)}`);

  const refused = await client.callTool({ name: 'resolve', arguments: { id, as: 'satisfied' } });
  expect(refused.isError === true, `resolve without evidence was not refused: ${text(refused)}`);
  expect(refused.structuredContent && refused.structuredContent.code === 'invalid' && refused.structuredContent.field === 'evidence',
    `refusal carries ${JSON.stringify(refused.structuredContent)}`);
  expect(text(refused).startsWith('invalid: '), `refusal text ${text(refused)}`);

  const other = await client.callTool({ name: 'make_promise', arguments: { promise: 'x', to: 'desk/b', until: '+1h', by: 'desk/b' } });
  expect(other.isError === true && other.structuredContent.code === 'forbidden', `acting as another seat: ${text(other)}`);

  const schema = await client.callTool({ name: 'make_promise', arguments: { promise: 7, until: '+1h' } });
  expect(schema.isError === true && schema.structuredContent.code === 'invalid' &&
    JSON.stringify(schema.structuredContent.details) === JSON.stringify(['/promise: got number, want string', '/to: required']),
  `schema violation: ${JSON.stringify(schema.structuredContent)}`);

  const done = await client.callTool({ name: 'resolve', arguments: { id, as: 'satisfied', evidence: ['https://example.com/e2e'] } });
  expect(!done.isError && done.structuredContent.state === 'satisfied', `resolve: ${text(done)}`);

  const shown = await client.callTool({ name: 'show', arguments: { id } });
  expect(!shown.isError && shown.structuredContent.resolution.as === 'satisfied', `show: ${text(shown)}`);

  const brief = await client.readResource({ uri: 'pinki://briefing' });
  expect(brief.contents[0].text.startsWith('pinki briefing for desk/a'), `briefing: ${JSON.stringify(brief)}`);

  console.log(JSON.stringify({ version: negotiated, tools: tools.length, id, refusal: text(refused) }));
  await client.close();
}

main().catch((err) => fail(err && err.stack ? err.stack : String(err)));
