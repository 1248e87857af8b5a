import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import { gatewayEventStoreProvider } from './gateway-event-store';
import { WebhookBackfill } from './webhook-backfill';
import { WebhookDeliverySweeper } from './webhook-delivery.sweeper';
import { WebhookEventConsumers } from './webhook-event.consumers';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookSender } from './webhook-sender';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';
import { WebhookUrlGuard } from './webhook-url-guard';
import type { WebhooksConfig } from './webhooks.config';

/**
 * Webhook subscriptions (issue 29 scope 2, ADR 0027): the REST routes are in the route table
 * (webhook.routes.ts); this module holds the subscriptions, the durable consumers that schedule
 * deliveries and the sweeper that sends them.
 */
@Module({
  providers: [
    gatewayEventStoreProvider,
    {
      provide: WebhookUrlGuard,
      inject: [APP_CONFIG],
      useFactory: (config: WebhooksConfig) => new WebhookUrlGuard({ allowPrivate: config.HS_WEBHOOK_ALLOW_PRIVATE, allowedHosts: config.HS_WEBHOOK_ALLOWED_HOSTS }),
    },
    WebhookSubscriptionsRepository, WebhookSecrets, WebhookSender, WebhookSubscriptionsService, WebhookBackfill, WebhookEventConsumers, WebhookDeliverySweeper],
  exports: [WebhookSubscriptionsService, WebhookBackfill],
})
export class WebhooksModule {}
