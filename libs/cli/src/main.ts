import { runCli } from './program';

/** Entry of `bin/headspace.js`: Ctrl-C / SIGTERM abort long-running commands (tail) so they exit 0. */
const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => controller.abort());
}

void runCli(process.argv.slice(2), { signal: controller.signal }).then((code) => {
  process.exitCode = code;
  // Nothing may keep a finished command alive (an open keep-alive socket, a stray timer).
  setImmediate(() => process.exit(code));
});
