import type { z } from 'zod';
import type { getNotificationSettings } from '@headspace/contracts';
import type { NotificationSettingsState } from '../notification-settings.decider';

/** The settings as served: each webhook's sealed secret replaced by `secretSet: true`. */
export function settingsView(state: Extract<NotificationSettingsState, { exists: true }>, streamVersion: bigint): z.input<typeof getNotificationSettings.response> {
  return {
    project: state.project,
    webhooks: state.webhooks.map(({ sealedSecret: _sealed, ...w }) => ({ ...w, secretSet: true as const })),
    email: state.email,
    setAt: state.setAt,
    streamVersion: streamVersion.toString(),
  };
}
