/**
 * A dependency-free stdio MCP server (newline-delimited JSON-RPC) for the sandbox spec: a sandbox
 * sees neither the repository nor its node_modules, so the SDK fixture cannot run inside one. Its
 * one tool, `where`, reports what the process sees: HOME, its hostname, whether `probe` exists and
 * its environment variable names.
 */
export const RAW_STDIO_MCP_SERVER = `
const { existsSync } = require('node:fs');
const { hostname } = require('node:os');
let buffer = '';
const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\\n');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (!line.trim()) continue;
    const req = JSON.parse(line);
    if (req.id === undefined) continue;
    if (req.method === 'initialize') send({ id: req.id, result: { protocolVersion: req.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
    else if (req.method === 'tools/list') send({ id: req.id, result: { tools: [{ name: 'where', description: 'Where am I?', inputSchema: { type: 'object', properties: { probe: { type: 'string' } } } }] } });
    else if (req.method === 'tools/call') send({ id: req.id, result: { content: [{ type: 'text', text: JSON.stringify({ home: process.env.HOME, hostname: hostname(), probeExists: existsSync(req.params.arguments.probe), envNames: Object.keys(process.env).sort() }) }] } });
    else send({ id: req.id, error: { code: -32601, message: 'no such method' } });
  }
});
`;
