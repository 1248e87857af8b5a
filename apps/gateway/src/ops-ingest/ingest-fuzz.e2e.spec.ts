import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFuzzRequests, type IngestFuzzRequest } from './testing/ingest-fuzz';
import { startIngestHarness, type IngestHarness } from './testing/ingest-harness';

/** Seeded fuzzing of the ingest routes: never a 5xx, always a problem naming a code, nothing recorded. */
describe('fuzzed ingest requests', () => {
  let h: IngestHarness;
  beforeAll(async () => {
    h = await startIngestHarness('gwingestfuzz');
  });
  afterAll(async () => h?.close());

  it('10,000 mutated envelopes, events, JSON bodies and compressed payloads: 4xx problems (or 200 for event-less envelopes), no 5xx, nothing recorded', { timeout: 600_000 }, async () => {
    const shop = await h.project('fuzz-shop');
    const wrongKey = 'f'.repeat(32);
    const requests = ingestFuzzRequests(10_000, { projectId: shop.projectId, project: shop.project, wrongKey, dsn: shop.dsn.replace(shop.publicKey, wrongKey) });
    expect(new Set(requests.map((r) => r.kind)).size).toBe(10);
    const before = await h.opsEventCount();
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    const check = async (request: IngestFuzzRequest) => {
      const res = await h.call({ method: 'POST', url: request.url, headers: request.headers, payload: request.payload });
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      const describe = `${request.kind} ${request.url.slice(0, 80)} ${JSON.stringify(request.headers).slice(0, 120)} → ${res.statusCode} ${res.body.slice(0, 240)}`;
      if (res.statusCode >= 500) return failures.push(describe);
      if (res.statusCode < 400) {
        // Only an envelope without event items is answered without asking ops-leon.
        if (res.json().accepted !== 0) failures.push(describe);
        return;
      }
      const problem = res.headers['content-type']?.toString().includes('application/problem+json') ? res.json() : undefined;
      if (!problem || typeof problem.code !== 'string' || /\n\s+at /.test(res.body)) return failures.push(describe);
      // The gateway's translation always meets the contract: ops-leon never refuses a report's shape.
      if (typeof problem.field === 'string' && problem.field.startsWith('report')) failures.push(describe);
    };
    for (let i = 0; i < requests.length; i += 16) await Promise.all(requests.slice(i, i + 16).map(check));
    expect(failures.slice(0, 20)).toEqual([]);
    expect(await h.opsEventCount()).toBe(before);
    // The mix reached every kind of answer: the key check (401), parsing (400), 413/415 and event-less 200s.
    expect(Object.keys(statuses).map(Number).sort()).toEqual(expect.arrayContaining([200, 400, 401, 415]));
  });
});
