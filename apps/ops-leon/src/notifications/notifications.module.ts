import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { EmailSender } from './deliver-notifications/email-sender';
import { NotificationDeliverySweeper } from './deliver-notifications/notification-delivery.sweeper';
import { WebhookSender } from './deliver-notifications/webhook-sender';
import { GetNotificationSettingsHandler } from './get-notification-settings/get-notification-settings.handler';
import { ListNotificationDeliveriesHandler } from './list-notification-deliveries/list-notification-deliveries.handler';
import { GroupTransitionConsumer } from './on-group-transition/group-transition.consumer';
import { SetNotificationSettingsHandler } from './set-notification-settings/set-notification-settings.handler';
import { NotificationSecrets } from './shared/notification-secrets';

/** The due-deliveries table (ops-leon's AppModule passes it to the platform's migrations). */
/** ops-leon's migrations (the notification tables are 0002): specs that boot this module alone apply them. */
export const OPS_LEON_MIGRATIONS = join(__dirname, '..', 'migrations');

/**
 * Leon's notifications (issue 20 scope 6, ADR 0022): per-project settings, a durable consumer of
 * every group lifecycle event that schedules deliveries, and the sweeper that sends them (signed
 * webhooks, Slack-compatible bodies, email over SMTP) with bounded, backed-off retries.
 */
@Module({
  providers: [NotificationSecrets, WebhookSender, EmailSender, NotificationDeliverySweeper],
  controllers: [SetNotificationSettingsHandler, GetNotificationSettingsHandler, ListNotificationDeliveriesHandler, GroupTransitionConsumer],
})
export class NotificationsModule {}
