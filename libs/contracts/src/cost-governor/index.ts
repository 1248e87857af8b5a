import type { EventDefinition } from '../messages';
import { budgetEvents } from './budget.contracts';
import { priceEvents } from './price.contracts';
import { quotaEvents } from './quota.contracts';
import { reportingEvents } from './reporting.contracts';
import { usageEvents } from './usage.contracts';

export * from './money.contracts';
export * from './price.contracts';
export * from './usage.contracts';
export * from './routing.contracts';
export * from './budget.contracts';
export * from './reporting.contracts';
export * from './quota.contracts';
export * from './call-cost';

/** Every event the cost-governor records: its EventStore validates against these. */
export const costGovernorEvents: EventDefinition[] = [...priceEvents, ...usageEvents, ...budgetEvents, ...reportingEvents, ...quotaEvents];
