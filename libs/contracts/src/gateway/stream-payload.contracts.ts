import { z } from 'zod';

/**
 * The JSON of each `data:` line of the gateway's `GET /api/v1/stream` (format `headspace`): an
 * event envelope's id, type and stream, its recording time as `time`, the team and trace id the
 * gateway read from it, a one-line summary and the payload. The OpenAPI document publishes it as
 * `StreamEventPayload` (the dashboard's type is generated from there); the CLI imports the type.
 */
export const streamEventPayloadSchema = z.object({
  eventId: z.uuid(),
  type: z.string().min(1),
  streamId: z.string().min(1),
  time: z.iso.datetime({ offset: true }).describe('When the event was recorded'),
  team: z.string().optional().describe('The team it belongs to, when it belongs to one'),
  traceId: z.string().regex(/^[0-9a-f]{32}$/).optional().describe('The W3C trace id of the traceparent it was recorded under'),
  summary: z.string().describe('One line for people'),
  position: z
    .string()
    .regex(/^[a-z][a-z0-9-]*:\d+:\d+$/)
    .optional()
    .describe('Where the event stands in its service\'s log, as a Headspace-Position token: send it back in Headspace-Min-Position and a query answers once the event is in its read models'),
  data: z.record(z.string(), z.unknown()).describe('The event payload, as the contracts define it for `type`'),
});
export type StreamEventPayload = z.output<typeof streamEventPayloadSchema>;
