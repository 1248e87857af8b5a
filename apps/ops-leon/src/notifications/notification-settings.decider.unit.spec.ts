import { describe, expect, it } from 'vitest';
import { DeciderSpec } from '@headspace/event-store';
import type { NotificationPayload } from '@headspace/contracts';
import { notificationSettingsDecider, planNotifications, type NotificationSettingsEvent } from './notification-settings.decider';

const now = '2026-11-26T12:00:00.000Z';
const hook = { id: 'ops', url: 'https://hooks.example/ops', format: 'headspace' as const };
const setOnce: NotificationSettingsEvent = {
  type: 'notification-settings.set',
  data: { project: 'shop', webhooks: [{ ...hook, sealedSecret: 'v1.k.sealed-1' }], email: null, setAt: now },
};
const codeIs = (code: string, field: string) => (error: unknown) => (error as { code?: string; field?: string }).code === code && (error as { field?: string }).field === field;

describe('notification settings decider', () => {
  it('records the settings with the sealed secret the handler made', () => {
    DeciderSpec.for(notificationSettingsDecider)
      .given([])
      .when({ type: 'set-settings', project: 'shop', webhooks: [{ ...hook, sealedSecret: 'v1.k.sealed-1' }], email: null, now })
      .then([setOnce]);
  });

  it('keeps the sealed secret of a webhook named again without a new one', () => {
    const later = '2026-11-26T12:05:00.000Z';
    DeciderSpec.for(notificationSettingsDecider)
      .given([setOnce])
      .when({ type: 'set-settings', project: 'shop', webhooks: [{ ...hook, url: 'https://hooks.example/v2' }], email: { to: ['oncall@example.com'], minSeverity: 'error' }, now: later })
      .then([
        {
          type: 'notification-settings.set',
          data: { project: 'shop', webhooks: [{ ...hook, url: 'https://hooks.example/v2', sealedSecret: 'v1.k.sealed-1' }], email: { to: ['oncall@example.com'], minSeverity: 'error' }, setAt: later },
        },
      ]);
  });

  it('refuses a new webhook without a secret, naming the field', () => {
    DeciderSpec.for(notificationSettingsDecider)
      .given([setOnce])
      .when({ type: 'set-settings', project: 'shop', webhooks: [hook, { ...hook, id: 'new-one' }], email: null, now })
      .thenThrows(codeIs('CONTRACTS.VALIDATION_FAILED', 'webhooks.1.secret'));
  });
});

describe('planNotifications', () => {
  const payload = (over: Partial<NotificationPayload> = {}): NotificationPayload => ({
    project: 'shop',
    groupId: 'grp_1',
    eventType: 'group.fix-proposed',
    eventId: 'e1',
    from: 'ANALYSING',
    to: 'FIX_PROPOSED',
    severity: 'error',
    occurredAt: now,
    ...over,
  });
  const settings = notificationSettingsDecider.evolve(notificationSettingsDecider.initialState(), {
    type: 'notification-settings.set',
    data: {
      project: 'shop',
      webhooks: [
        { id: 'all', url: 'https://a.example', format: 'headspace', sealedSecret: 's' },
        { id: 'critical-only', url: 'https://b.example', format: 'slack', minSeverity: 'critical', sealedSecret: 's' },
        { id: 'resolved-only', url: 'https://c.example', format: 'headspace', events: ['resolved'], sealedSecret: 's' },
      ],
      email: { to: ['oncall@example.com'], minSeverity: 'critical' },
      setAt: now,
    },
  });

  it('sends every transition to an unfiltered webhook, and by state and severity to filtered ones', () => {
    expect(planNotifications(settings, payload()).map((p) => p.target)).toEqual(['all']);
    expect(planNotifications(settings, payload({ to: 'RESOLVED', severity: 'critical' })).map((p) => p.target)).toEqual(['all', 'critical-only', 'resolved-only', 'email']);
  });

  it('emails only at or above the email minimum, never for an untriaged group', () => {
    expect(planNotifications(settings, payload({ severity: 'critical' })).some((p) => p.channel === 'email')).toBe(true);
    expect(planNotifications(settings, payload({ severity: 'error' })).some((p) => p.channel === 'email')).toBe(false);
    expect(planNotifications(settings, payload({ severity: null })).map((p) => p.target)).toEqual(['all']);
  });

  it('plans nothing for a project without settings', () => {
    expect(planNotifications(notificationSettingsDecider.initialState(), payload())).toEqual([]);
  });
});
