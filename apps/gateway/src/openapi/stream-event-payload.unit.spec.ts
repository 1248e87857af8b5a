import { describe, expect, it } from 'vitest';
import { apiRoutes } from '../routes/api-routes';
import { buildOpenApiDocument } from './openapi-document';
import { streamEventPayloadSchema } from '@headspace/contracts';

type Schema = { $ref?: string; required?: string[]; properties?: Record<string, unknown> };
const doc = buildOpenApiDocument(apiRoutes) as unknown as {
  paths: Record<string, { get: { responses: Record<string, { content: Record<string, { itemSchema?: Schema }> }> } }>;
  components: { schemas: Record<string, Schema> };
};

describe('the stream payload in the OpenAPI document', () => {
  it('describes each SSE data line as the StreamEventPayload component, for clients to generate their type from', () => {
    const stream = doc.paths['/api/v1/stream'].get.responses[200].content['text/event-stream'];
    expect(stream.itemSchema).toEqual({ $ref: '#/components/schemas/StreamEventPayload' });
    const payload = doc.components.schemas.StreamEventPayload;
    expect(payload.required?.sort()).toEqual(['data', 'eventId', 'streamId', 'summary', 'time', 'type']);
    expect(Object.keys(payload.properties ?? {}).sort()).toEqual(['data', 'eventId', 'position', 'streamId', 'summary', 'team', 'time', 'traceId', 'type']);
  });

  it('accepts what the gateway sends and refuses a payload without its envelope fields', () => {
    const sent = {
      eventId: '0b9d7c3e-3f5e-4b8e-9a51-3c2f0f1d2a11',
      type: 'task.claimed',
      time: '2026-11-22T08:01:02.000Z',
      team: 'apollo',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      streamId: 'task-apollo.mig',
      summary: "Con claimed 'Add auth migration'",
      data: { owner: 'con' },
    };
    expect(streamEventPayloadSchema.parse(sent)).toEqual(sent);
    const { eventId: _missing, ...withoutId } = sent;
    expect(streamEventPayloadSchema.safeParse(withoutId).success).toBe(false);
  });
});
