import {
  NOTIFICATION_SEVERITY_ORDER,
  ValidationError,
  type EventData,
  type NotificationPayload,
  type NotificationSeverity,
  type notificationSettingsSet,
  type RecordedWebhook,
} from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

export type NotificationSettingsEvent = { type: 'notification-settings.set'; data: EventData<typeof notificationSettingsSet> };
type Settings = EventData<typeof notificationSettingsSet>;

export type NotificationSettingsState = { exists: false } | ({ exists: true } & Settings);

/** A webhook as the handler hands it over: a new secret is sealed already (sealing draws an IV), or absent to keep the old one. */
export interface WebhookToSet extends Omit<RecordedWebhook, 'sealedSecret'> {
  sealedSecret?: string;
}

export interface SetNotificationSettings {
  type: 'set-settings';
  project: string;
  webhooks: WebhookToSet[];
  email: Settings['email'];
  setBy?: string;
  now: string;
}

export type NotificationSettingsCommand = SetNotificationSettings;

/** Replaces the project's settings; a webhook named again without a secret keeps the one it had. */
function setSettings(command: SetNotificationSettings, state: NotificationSettingsState): NotificationSettingsEvent[] {
  const previous = new Map(state.exists ? state.webhooks.map((w) => [w.id, w.sealedSecret]) : []);
  const missing = command.webhooks.flatMap((w, i) => (w.sealedSecret ?? previous.get(w.id) ? [] : [{ field: `webhooks.${i}.secret`, message: 'is required for a new webhook' }]));
  if (missing.length) throw new ValidationError('notification settings', missing);
  const webhooks = command.webhooks.map(({ sealedSecret, ...w }) => ({ ...w, sealedSecret: (sealedSecret ?? previous.get(w.id))! }));
  return [
    {
      type: 'notification-settings.set',
      data: { project: command.project, webhooks, email: command.email, ...(command.setBy ? { setBy: command.setBy } : {}), setAt: command.now },
    },
  ];
}

export const notificationSettingsDecider: Decider<NotificationSettingsCommand, NotificationSettingsState, NotificationSettingsEvent> = {
  initialState: () => ({ exists: false }),
  decide: decideByType<NotificationSettingsCommand, NotificationSettingsState, NotificationSettingsEvent>({ 'set-settings': setSettings }),
  evolve: evolveByType<NotificationSettingsState, NotificationSettingsEvent>({
    'notification-settings.set': (_state, event) => ({ exists: true, ...event.data }),
  }),
};

export interface PlannedDelivery {
  channel: 'webhook' | 'email';
  /** The webhook id, or `email`. */
  target: string;
}

const rank = (s: NotificationSeverity) => NOTIFICATION_SEVERITY_ORDER.indexOf(s);
/** At least as severe as `min`; an unknown severity passes only where no minimum is asked for. */
const atLeast = (severity: NotificationSeverity | null, min: NotificationSeverity | undefined) =>
  min === undefined || (severity !== null && rank(severity) <= rank(min));

/**
 * Who hears of one transition: webhooks whose state filter and minimum severity it passes, and
 * email for critical and error groups at or above the email's minimum.
 */
export function planNotifications(settings: NotificationSettingsState, payload: NotificationPayload): PlannedDelivery[] {
  if (!settings.exists) return [];
  const matchesFilter = (events: string[] | undefined) =>
    !events || events.some((e) => e.toLowerCase() === payload.to.toLowerCase() || e === payload.eventType);
  const hooks = settings.webhooks
    .filter((w) => matchesFilter(w.events) && atLeast(payload.severity, w.minSeverity))
    .map((w) => ({ channel: 'webhook' as const, target: w.id }));
  const email = settings.email && atLeast(payload.severity, settings.email.minSeverity) ? [{ channel: 'email' as const, target: 'email' }] : [];
  return [...hooks, ...email];
}
