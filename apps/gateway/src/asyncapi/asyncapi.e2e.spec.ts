import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';
import { buildAsyncApiDocument } from './asyncapi-document';
import { publishedEvents } from './published-events';

describe('GET /api/asyncapi.json and /api/docs/events', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwasyncapi', teamManager: false, orchestrator: false, costGovernor: false });
  }, 60_000);
  afterAll(async () => h?.close());

  it('serve the event contract and its page without a token', async () => {
    const json = await h.call({ method: 'GET', url: '/api/asyncapi.json' });
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toContain('application/json');
    expect(json.json()).toEqual(JSON.parse(JSON.stringify(buildAsyncApiDocument(publishedEvents, process.env.HEADSPACE_VERSION ?? '1.0.0'))));
    const page = await h.call({ method: 'GET', url: '/api/docs/events' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('/api/asyncapi.json');
  });
});
