import { Parser } from '@asyncapi/parser';
import { eventEnvelopeSchema } from '@headspace/messaging';
import { describe, expect, it } from 'vitest';
import { isPublicPath } from '../auth/access-policy';
import { buildAsyncApiDocument, messageKey, natsChannelKey, STREAM_CHANNEL } from './asyncapi-document';
import { renderAsyncApiPage } from './asyncapi-page';
import { publishedEvents } from './published-events';

type Message = { name: string; payload: unknown; examples: Array<{ payload: { type: string; dataschema: string; data: unknown } }> };
type Doc = {
  asyncapi: string;
  channels: Record<string, { address: string; messages: Record<string, Message | { $ref: string }> }>;
  operations: Record<string, { action: string; channel: { $ref: string }; messages: Array<{ $ref: string }> }>;
  components: { messages: Record<string, Message> };
};

const doc = buildAsyncApiDocument(publishedEvents) as unknown as Doc;
const resolve = (ref: string) =>
  ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);

async function errorsOf(document: unknown): Promise<string[]> {
  const { diagnostics } = await new Parser().parse(document as never);
  // Spectral severities: 0 error, 1 warning, 2 information, 3 hint.
  return diagnostics.filter((d) => d.severity === 0).map((d) => `${d.path.join('/')}: ${d.message}`);
}

describe('the AsyncAPI document', () => {
  it('validates with the official @asyncapi/parser without errors', async () => {
    expect(doc.asyncapi).toBe('3.0.0');
    expect(await errorsOf(doc)).toEqual([]);
  }, 60_000);

  it('is refused by the parser when an operation names a message its channel does not carry', async () => {
    const broken = structuredClone(doc);
    broken.operations[`receive.${STREAM_CHANNEL}`].messages.push({ $ref: `#/channels/${STREAM_CHANNEL}/messages/no-such.event.v1` });
    expect((await errorsOf(broken)).length).toBeGreaterThan(0);
  }, 60_000);

  it('gives every event its NATS subject as a channel with a receive operation, and the SSE stream all of them', () => {
    for (const e of publishedEvents) {
      const channel = doc.channels[natsChannelKey(e)];
      expect(channel.address, e.type).toBe(`hs.evt.${e.service}.${e.category}.${e.name}`);
      expect(Object.keys(channel.messages)).toEqual([messageKey(e)]);
      expect(doc.operations[`receive.${natsChannelKey(e)}`]).toMatchObject({ action: 'receive', channel: { $ref: `#/channels/${natsChannelKey(e)}` } });
    }
    expect(doc.channels[STREAM_CHANNEL].address).toBe('/api/v1/stream');
    expect(Object.keys(doc.channels[STREAM_CHANNEL].messages).sort()).toEqual(publishedEvents.map(messageKey).sort());
    expect(new Set(Object.values(doc.operations).map((o) => o.action))).toEqual(new Set(['receive']));
  });

  it('carries for every event version an example whose data the contract accepts, in CloudEvent and NATS envelope form', () => {
    for (const e of publishedEvents) {
      const cloudEvent = doc.components.messages[messageKey(e)].examples[0].payload;
      expect(cloudEvent.type).toBe(`headspace.${e.type}`);
      expect(resolve(cloudEvent.dataschema), `${e.type} dataschema`).toBe(doc.components.messages[messageKey(e)]);
      expect(e.schema.safeParse(cloudEvent.data).error, e.type).toBeUndefined();
      const nats = doc.channels[natsChannelKey(e)].messages[messageKey(e)] as Message;
      const envelope = eventEnvelopeSchema.parse(nats.examples[0].payload);
      expect(envelope).toMatchObject({ type: e.type, schemaVersion: e.schemaVersion });
      expect(e.schema.safeParse(envelope.data).error, e.type).toBeUndefined();
    }
  });

  it('is described by a self-contained page, public like the OpenAPI document', () => {
    const page = renderAsyncApiPage(publishedEvents, doc as unknown as Record<string, unknown>);
    for (const e of publishedEvents) expect(page).toContain(`headspace.${e.type}</code>`);
    expect(page).not.toMatch(/<script|<link|src="http/);
    for (const url of ['/api/asyncapi.json', '/api/docs/events']) expect(isPublicPath(url)).toBe(true);
    expect(isPublicPath('/api/docs/events/../../v1/tokens')).toBe(false);
  });
});
