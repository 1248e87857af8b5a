// Report Node exceptions to Headspace (Leon) without an SDK: Node 18+ (global fetch), no dependencies.
//
//   import { createReporter } from './report-exception.mjs';
//   const reporter = createReporter({ url: 'http://127.0.0.1:3000/api/v1/ops/projects/shop/exceptions', key: '<ingest key>' });
//   reporter.install();                       // uncaughtException + unhandledRejection: report, then exit 1
//   await reporter.report(error, { tags: { route: '/orders' } });   // anything you catch yourself
import { randomUUID } from 'node:crypto';

const clip = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** V8 stack lines (`at fn (file:line:col)`), innermost last as Headspace keeps them. */
export function parseFrames(stack = '') {
  const frames = [];
  for (const line of stack.split('\n')) {
    const m = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (!m) continue;
    const [, fn, file, lineno, colno] = m;
    const absPath = file.replace(/^file:\/\//, '');
    frames.push({
      function: clip(fn ?? '<anonymous>', 512),
      filename: clip(absPath.split('/').pop() ?? absPath, 1024),
      absPath: clip(absPath, 2048),
      lineno: Number(lineno),
      colno: Number(colno),
      inApp: !absPath.startsWith('node:') && !absPath.includes('/node_modules/'),
    });
  }
  return frames.reverse().slice(-200);
}

export function createReporter({
  url = process.env.HEADSPACE_INGEST_URL,
  key = process.env.HEADSPACE_INGEST_KEY,
  environment = process.env.HEADSPACE_ENVIRONMENT,
  release = process.env.HEADSPACE_RELEASE,
  timeoutMs = 2_000,
} = {}) {
  if (!url || !key) throw new Error('createReporter needs url and key (or HEADSPACE_INGEST_URL and HEADSPACE_INGEST_KEY)');

  /** Sends one report; never throws (a reporter must not crash the app it reports on). */
  async function report(error, { level = 'error', handled = true, tags = {}, request } = {}) {
    const err = error instanceof Error ? error : new Error(String(error));
    const body = {
      eventId: randomUUID().replaceAll('-', ''),
      type: clip(err.name || 'Error', 256),
      message: clip(err.message ?? '', 8_192),
      level,
      handled,
      frames: parseFrames(err.stack),
      platform: 'node',
      timestamp: new Date().toISOString(),
      tags,
      ...(environment ? { environment } : {}),
      ...(release ? { release } : {}),
      ...(request ? { request } : {}),
    };
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-headspace-ingest-key': key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) process.stderr.write(`report-exception: Headspace answered ${res.status}: ${(await res.text()).slice(0, 300)}\n`);
      return res.ok ? await res.json() : undefined;
    } catch (sendError) {
      process.stderr.write(`report-exception: report not sent: ${sendError.message}\n`);
      return undefined;
    }
  }

  /** Reports what would crash the process, then exits 1 as Node would have. */
  function install() {
    const crash = (error) => {
      process.stderr.write(`${error?.stack ?? error}\n`);
      report(error, { level: 'fatal', handled: false }).finally(() => process.exit(1));
    };
    process.on('uncaughtException', crash);
    process.on('unhandledRejection', crash);
  }

  return { report, install };
}
