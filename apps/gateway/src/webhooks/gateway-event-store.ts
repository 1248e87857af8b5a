import { EventRegistry, gatewayEvents } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Provider } from '@nestjs/common';
import type { Pool } from 'pg';

/**
 * The gateway's own event log (the event store's tables exist in every service schema): the webhook
 * subscriptions' events, relayed to `HS_EVT_GATEWAY` like every service's (ADR 0027).
 */
export const gatewayEventStoreProvider: Provider = {
  provide: EventStore,
  inject: [PG_POOL, SERVICE_SCHEMA],
  useFactory: (pool: Pool, schema: string) => new EventStore({ pool, schema, registry: new EventRegistry(gatewayEvents) }),
};
