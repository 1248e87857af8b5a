'use strict';
// Reports exceptions to Headspace (Leon) without an SDK, as examples/ops/node/report-exception.mjs
// does: HEADSPACE_INGEST_URL (the project's /exceptions URL) and HEADSPACE_INGEST_KEY from the env.
const { randomUUID } = require('node:crypto');

const clip = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** V8 stack lines (`at fn (file:line:col)`), innermost last as Headspace keeps them. */
function parseFrames(stack = '') {
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

function createReporter({ url = process.env.HEADSPACE_INGEST_URL, key = process.env.HEADSPACE_INGEST_KEY, release, environment = 'demo', timeoutMs = 2_000 } = {}) {
  /** Sends one report and answers Headspace's reply (undefined when not sent); never throws. */
  async function report(error, { level = 'error', handled = false, request } = {}) {
    if (!url || !key) return undefined; // not configured: the app runs without reporting
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
      environment,
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
      return res.ok ? { eventId: body.eventId, ...(await res.json()) } : undefined;
    } catch (sendError) {
      process.stderr.write(`report-exception: report not sent: ${sendError.message}\n`);
      return undefined;
    }
  }
  return { report };
}

module.exports = { createReporter, parseFrames };
