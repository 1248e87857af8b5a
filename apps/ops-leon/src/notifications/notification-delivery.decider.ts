import type {
  EventData,
  NotificationPayload,
  notificationDeliveryAttempted,
  notificationDeliveryFailed,
  notificationDeliveryScheduled,
  notificationDeliverySucceeded,
} from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

export type NotificationDeliveryEvent =
  | { type: 'notification-delivery.scheduled'; data: EventData<typeof notificationDeliveryScheduled> }
  | { type: 'notification-delivery.attempted'; data: EventData<typeof notificationDeliveryAttempted> }
  | { type: 'notification-delivery.succeeded'; data: EventData<typeof notificationDeliverySucceeded> }
  | { type: 'notification-delivery.failed'; data: EventData<typeof notificationDeliveryFailed> };

export type NotificationDeliveryState =
  | { status: 'none' }
  | {
      status: 'pending' | 'succeeded' | 'failed';
      deliveryId: string;
      project: string;
      channel: 'webhook' | 'email';
      target: string;
      payload: NotificationPayload;
      attempts: number;
      maxAttempts: number;
      nextAttemptAt: string;
      lastError?: string;
    };

export interface ScheduleDelivery {
  type: 'schedule';
  deliveryId: string;
  project: string;
  channel: 'webhook' | 'email';
  target: string;
  payload: NotificationPayload;
  maxAttempts: number;
  now: string;
}

/** The outcome of one try, as the sender saw it. */
export interface RecordAttempt {
  type: 'record-attempt';
  ok: boolean;
  httpStatus?: number;
  error?: string;
  durationMs: number;
  /** Exponential backoff: the n-th failure waits baseMs·2^(n-1), at most maxMs. */
  backoff: { baseMs: number; maxMs: number };
  now: string;
}

/** The target is gone (webhook removed, email switched off): stop trying. */
export interface AbandonDelivery {
  type: 'abandon';
  reason: string;
  now: string;
}

export type NotificationDeliveryCommand = ScheduleDelivery | RecordAttempt | AbandonDelivery;

export const retryDelayMs = (failures: number, backoff: { baseMs: number; maxMs: number }) =>
  Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, failures - 1));

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** Scheduling twice (a redelivered transition) is a no-op. */
function schedule(c: ScheduleDelivery, state: NotificationDeliveryState): NotificationDeliveryEvent[] {
  if (state.status !== 'none') return [];
  const { type: _type, now, ...data } = c;
  return [{ type: 'notification-delivery.scheduled', data: { ...data, scheduledAt: now } }];
}

/** Outcomes after the delivery ended (an overlapping sweep's late answer) change nothing. */
function recordAttempt(c: RecordAttempt, state: NotificationDeliveryState): NotificationDeliveryEvent[] {
  if (state.status !== 'pending') return [];
  const attempt = state.attempts + 1;
  const ids = { deliveryId: state.deliveryId, project: state.project };
  const last = !c.ok && attempt >= state.maxAttempts;
  const attempted: NotificationDeliveryEvent = {
    type: 'notification-delivery.attempted',
    data: {
      ...ids,
      attempt,
      ok: c.ok,
      ...(c.httpStatus !== undefined ? { httpStatus: c.httpStatus } : {}),
      ...(c.error !== undefined ? { error: c.error.slice(0, 500) } : {}),
      durationMs: Math.max(0, Math.round(c.durationMs)),
      ...(!c.ok && !last ? { nextAttemptAt: plus(c.now, retryDelayMs(attempt, c.backoff)) } : {}),
      attemptedAt: c.now,
    },
  };
  if (c.ok) return [attempted, { type: 'notification-delivery.succeeded', data: { ...ids, attempts: attempt, succeededAt: c.now } }];
  if (last) return [attempted, { type: 'notification-delivery.failed', data: { ...ids, attempts: attempt, lastError: (c.error ?? 'failed').slice(0, 500), failedAt: c.now } }];
  return [attempted];
}

function abandon(c: AbandonDelivery, state: NotificationDeliveryState): NotificationDeliveryEvent[] {
  if (state.status !== 'pending') return [];
  return [{ type: 'notification-delivery.failed', data: { deliveryId: state.deliveryId, project: state.project, attempts: state.attempts, lastError: c.reason.slice(0, 500), failedAt: c.now } }];
}

export const notificationDeliveryDecider: Decider<NotificationDeliveryCommand, NotificationDeliveryState, NotificationDeliveryEvent> = {
  initialState: () => ({ status: 'none' }),
  decide: decideByType<NotificationDeliveryCommand, NotificationDeliveryState, NotificationDeliveryEvent>({ schedule, 'record-attempt': recordAttempt, abandon }),
  evolve: evolveByType<NotificationDeliveryState, NotificationDeliveryEvent>({
    'notification-delivery.scheduled': (_s, { data }) => ({
      status: 'pending',
      deliveryId: data.deliveryId,
      project: data.project,
      channel: data.channel,
      target: data.target,
      payload: data.payload,
      attempts: 0,
      maxAttempts: data.maxAttempts,
      nextAttemptAt: data.scheduledAt,
    }),
    'notification-delivery.attempted': (s, { data }) =>
      s.status === 'none' ? s : { ...s, attempts: data.attempt, nextAttemptAt: data.nextAttemptAt ?? s.nextAttemptAt, lastError: data.ok ? undefined : data.error },
    'notification-delivery.succeeded': (s) => (s.status === 'none' ? s : { ...s, status: 'succeeded' }),
    'notification-delivery.failed': (s, { data }) => (s.status === 'none' ? s : { ...s, status: 'failed', lastError: data.lastError }),
  }),
};
