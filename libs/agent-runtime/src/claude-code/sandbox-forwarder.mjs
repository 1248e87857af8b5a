/**
 * Runs inside a Claude Code session's sandbox, whose network namespace has only loopback:
 * `node sandbox-forwarder.mjs '<[{"port":P,"socket":"/path.sock"}]>' -- claude …`. For each entry it
 * listens on 127.0.0.1:P and pipes every connection to the unix socket (mounted from the host,
 * where the orchestrator connects it on to the same port: the model API, the hook endpoint), then
 * runs the command and exits with its status. So the CLI's URLs need no change, and nothing else
 * of the host's loopback (NATS, PostgreSQL) is reachable from the sandbox. No dependencies.
 */
import net from 'node:net';
import { spawn } from 'node:child_process';

const specs = JSON.parse(process.argv[2] ?? '[]');
const sep = process.argv.indexOf('--');
const command = sep > 0 ? process.argv.slice(sep + 1) : [];

function forward(spec) {
  return new Promise((resolve, reject) => {
    const server = net.createServer((client) => {
      const upstream = net.connect(spec.socket);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    server.once('error', reject);
    server.listen(spec.port, '127.0.0.1', () => resolve(server));
  });
}

async function main() {
  if (command.length === 0) throw new Error('no command after --');
  const servers = await Promise.all(specs.map(forward));
  for (const s of servers) s.unref();
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('error', (error) => {
    process.stderr.write(`sandbox forwarder: could not start ${command[0]}: ${error.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}

main().catch((error) => {
  process.stderr.write(`sandbox forwarder: ${error && error.message ? error.message : error}\n`);
  process.exit(125);
});
