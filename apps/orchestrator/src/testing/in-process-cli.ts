import { Writable } from 'node:stream';
// The CLI is the product's front door in these specs; apps never import it outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { runCli } from '@headspace/cli';

/** Runs `headspace …` in this process against a gateway, with what it printed and its exit code. */
export async function runCliCaptured(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await runCli(args, { env, io: { out: sink((s) => (out += s)), err: sink((s) => (err += s)) } });
  return { code, out, err };
}
