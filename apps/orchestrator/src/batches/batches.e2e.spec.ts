import { execFile } from 'node:child_process';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { costOf, type BatchView, type PriceTable, type SessionUsage } from '@headspace/contracts';
import { priceRowFor, startSimulator, type RunningSimulator } from '@headspace/llm';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real gateway, orchestrator and cost governor in-process; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startGatewayHarness, type GatewayHarness } from '../../../gateway/src/testing/gateway-harness';

const REPO = resolve(__dirname, '../../../..');
const BIN = join(REPO, 'bin', 'headspace.js');

/**
 * Message Batches end to end: the gateway, the orchestrator and the cost governor, the orchestrator's
 * model backend aimed over HTTP at a Messages-API simulator this spec holds (so it can count the
 * batches it was sent), spoken to by the real `@anthropic-ai/sdk`.
 */
describe('deferrable work as a Message Batch, settled at batch prices', { timeout: 180_000 }, () => {
  let sim: RunningSimulator;
  let h: GatewayHarness;
  let dir: string;
  let endpoint: string;

  const post = (team: string, payload: unknown) => h.call({ method: 'POST', url: `/api/v1/teams/${team}/batches`, payload: payload as Record<string, unknown> }, h.adminToken);
  const view = async (team: string, batchId: string) => (await h.call({ method: 'GET', url: `/api/v1/teams/${team}/batches/${batchId}` }, h.adminToken)).json() as BatchView;
  const ended = (team: string, batchId: string) =>
    waitFor(async () => ((v) => (v.status === 'submitting' || v.status === 'in_progress' ? undefined : v))(await view(team, batchId)), { timeoutMs: 60_000, intervalMs: 200, message: `batch ${batchId} to end` });
  const batchEvents = async () => Number((await h.db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id LIKE 'batch-%'`)).rows[0].n);

  beforeAll(async () => {
    sim = await startSimulator({ announce: false, batchProcessingMs: 1_500 });
    dir = await mkdtemp(join(tmpdir(), 'hs-batches-'));
    h = await startGatewayHarness({
      label: 'batches',
      orchestrator: true,
      costGovernor: true,
      env: { ANTHROPIC_API_KEY: 'sk-headspace-simulated', ANTHROPIC_BASE_URL: sim.url, HS_BATCH_POLL_MS: '200', HS_WORKSPACES_DIR: join(dir, 'runs'), HS_AGENT_HOME: join(dir, 'agents') },
    });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h.http().server.address() as { port: number }).port}`;
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    await sim?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('20 deferrable requests are submitted as one batch, polled to ended, every result recorded and charged at 50% of the standard price, on the team budget', async () => {
    const budget = await h.call({ method: 'PUT', url: '/api/v1/budgets', payload: { scope: { kind: 'team', team: 'nightly' }, limitUsd: '100', setBy: 'spec' } }, h.adminToken);
    expect(budget.statusCode).toBeLessThan(300);
    const requests = Array.from({ length: 20 }, (_, i) => ({
      prompt: `Summarise release note ${i + 1}: ${'the parser now accepts trailing commas. '.repeat(i + 1)}`,
      ...(i % 5 === 0 ? { customId: `note_${i + 1}` } : {}),
      ...(i % 2 === 0 ? { persona: 'robbo' } : {}),
      ...(i === 7 ? { model: 'sonnet' } : {}),
    }));
    const submitted = await post('nightly', { requests });
    expect(submitted.statusCode).toBe(201);
    const { batchId, items } = submitted.json() as { batchId: string; items: Array<{ customId: string; tier: string; reasons: string[] }> };
    expect(items).toHaveLength(20);
    expect(items[0].customId).toBe('note_1');
    expect(items[1].customId).toBe('item-2');
    // Routed by the governor as non-interactive work: the Batch API; one item pinned to sonnet.
    for (const item of items) expect(item.reasons).toContain('non-interactive → Batch API (50%)');
    expect(items[7]).toMatchObject({ tier: 'sonnet' });
    expect(items.filter((i) => i.tier === 'haiku')).toHaveLength(19);

    const done = await ended('nightly', batchId);
    expect(done).toMatchObject({ status: 'ended', simulated: true, counts: { succeeded: 20, pending: 0, errored: 0, canceled: 0, expired: 0 } });
    expect(done.providerBatchId).toMatch(/^msgbatch_sim_/);
    // One batch at the API for the 20 requests, and every item answered by the engine with its own prompt.
    expect(sim.handler.batches.size).toBe(1);
    for (const [i, item] of done.items.entries()) {
      expect(item.status).toBe('succeeded');
      expect(item.text).toMatch(/^\[simulated\] Deferred answer to: Summarise release note/);
      expect(item.text).toContain(`release note ${i + 1}:`);
      expect(Number(item.costUsd)).toBeGreaterThan(0);
    }
    expect(done.items[7].model).toMatch(/^claude-sonnet/);

    // Every result is in the governor's ledger once, at the batch tier.
    const { rows: usage } = await h.db.pool.query<{ data: { serviceTier: string; model: string; tokens: SessionUsage; costMicros: string; attribution: { taskId: string } } }>(
      `SELECT data FROM cost_governor.events WHERE type = 'usage.recorded' AND data->'attribution'->>'project' = $1`,
      [batchId],
    );
    expect(usage).toHaveLength(20);
    expect(new Set(usage.map((u) => u.data.attribution.taskId)).size).toBe(20);
    expect(usage.every((u) => u.data.serviceTier === 'batch')).toBe(true);

    // Spend = the price table's batch rate on the recorded usage, i.e. half of the standard price.
    const { table } = (await h.call({ method: 'GET', url: '/api/v1/prices' }, h.adminToken)).json() as { table: PriceTable };
    expect(table.multipliers.batch).toBe(0.5);
    let atBatch = 0n;
    let atStandard = 0n;
    for (const { data } of usage) {
      const row = priceRowFor(table, data.model)!;
      atBatch += costOf(row, table.multipliers, data.tokens, true).micros;
      atStandard += costOf(row, table.multipliers, data.tokens, false).micros;
    }
    const charged = usage.reduce((sum, u) => sum + BigInt(u.data.costMicros), 0n);
    expect(charged).toBe(atBatch);
    expect(charged).toBeGreaterThan(0n);
    expect(Number(atStandard - 2n * charged)).toBeLessThanOrEqual(usage.length); // at most a micro-dollar of rounding per call
    expect(Number(atStandard - 2n * charged)).toBeGreaterThanOrEqual(-usage.length);
    const micros = (usd: string | null) => Math.round(Number(usd) * 1_000_000);
    expect(micros(done.costUsd)).toBe(Number(charged));
    expect(micros(done.standardCostUsd)).toBe(Number(atStandard));

    // The spend report (a read model: waited for) and the team budget see it.
    const spend = await waitFor(
      async () => ((r) => (r.total.calls === 20 ? r : undefined))((await h.call({ method: 'GET', url: `/api/v1/usage/spend?project=${batchId}&groupBy=project` }, h.adminToken)).json() as { total: { costMicros: string; calls: number } }),
      { timeoutMs: 10_000, message: 'the spend report to hold the 20 results' },
    );
    expect(spend.total).toMatchObject({ costMicros: charged.toString(), calls: 20 });
    const teamBudget = await waitFor(
      async () => ((b) => (BigInt(b.spentMicros) === charged ? b : undefined))((await h.call({ method: 'GET', url: '/api/v1/budgets/team.nightly' }, h.adminToken)).json() as { spentMicros: string }),
      { timeoutMs: 10_000, message: 'the team budget to show the batch spend' },
    );
    expect(teamBudget.spentMicros).toBe(charged.toString());

    // Listed under its team, not found under another.
    // The list is a read model: it shows the end once its projection has taken it in.
    const listed = await waitFor(
      async () => {
        const list = (await h.call({ method: 'GET', url: '/api/v1/teams/nightly/batches' }, h.adminToken)).json() as { items: Array<{ batchId: string; status: string; items: number; costUsd: string }> };
        const mine = list.items.find((b) => b.batchId === batchId);
        return mine?.status === 'ended' ? mine : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, message: 'the batch list to show it ended' },
    );
    expect(listed).toMatchObject({ status: 'ended', items: 20, costUsd: done.costUsd });
    const elsewhere = await h.call({ method: 'GET', url: `/api/v1/teams/other/batches/${batchId}` }, h.adminToken);
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toMatchObject({ code: 'BATCH.NOT_FOUND' });
  });

  it('a bad request is a 400 naming the field, and nothing is written or sent', async () => {
    const before = await batchEvents();
    const sent = sim.handler.batches.size;
    const one = { prompt: 'Summarise the changelog' };
    for (const [payload, field] of [
      [{ requests: [] }, 'requests'],
      [{}, 'requests'],
      [{ requests: Array.from({ length: 101 }, () => one) }, 'requests'],
      [{ requests: [{ prompt: '   ' }] }, 'requests.0.prompt'],
      [{ requests: [one, one, { prompt: 'x', model: 'gpt-4o' }] }, 'requests.2.model'],
      [{ requests: [one], model: 'claude-nonexistent-9' }, 'model'],
      [{ requests: [{ ...one, customId: 'a' }, { ...one, customId: 'a' }] }, 'requests.1.customId'],
      [{ requests: [{ ...one, customId: 'has spaces' }] }, 'requests.0.customId'],
      [{ requests: [one], effort: 'max' }, 'effort'],
    ] as const) {
      const res = await post('nightly', payload);
      expect({ field, status: res.statusCode }).toEqual({ field, status: 400 });
      expect(res.json().field).toBe(field);
    }
    expect(await batchEvents()).toBe(before);
    expect(sim.handler.batches.size).toBe(sent);
  });

  it('`headspace batch submit <file.jsonl> --wait`, `status` and `results` print each item and the cost at batch prices, labelled simulated', async () => {
    const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
      new Promise((done) => {
        execFile(
          process.execPath,
          [BIN, ...args],
          { env: { ...process.env, HEADSPACE_CONFIG: join(dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h.adminToken, NO_COLOR: '1' }, timeout: 120_000 },
          (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const file = join(dir, 'requests.jsonl');
    await writeFile(file, ['{"customId": "first", "prompt": "Name three uses of a batch API"}', '', '{"prompt": "Summarise the README", "persona": "gavin"}', '{"prompt": "List the risks"}'].join('\n'));
    const out = await cli(['batch', 'submit', file, '-t', 'cli', '--wait']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^batch (\S+) ended {2}\[simulated\]$/m);
    expect(out.stdout).toContain('items:   3 succeeded, 0 errored, 0 canceled, 0 expired, 0 pending');
    expect(out.stdout).toMatch(/^cost: {4}\$\d+\.\d+ at batch prices \(\$\d+\.\d+ at standard\) \(simulated\)$/m);
    const batchId = /^batch (\S+) ended/m.exec(out.stdout)![1];

    const results = await cli(['batch', 'results', batchId, '-t', 'cli']);
    expect(results.code).toBe(0);
    for (const id of ['first', 'item-2', 'item-3']) expect(results.stdout).toMatch(new RegExp(`${id}.*succeeded.*Deferred answer`));
    const status = await cli(['batch', 'status', batchId, '-t', 'cli', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ batchId, status: 'ended', simulated: true, counts: { succeeded: 3 } });

    await writeFile(file, '{"prompt": "ok"}\nnot json\n');
    const bad = await cli(['batch', 'submit', file, '-t', 'cli']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('requests.jsonl:2 is not JSON');
  });
});
