import { askEvents, batchEvents, costGovernorEvents, loopEvents, pluginEvents, gatewayEvents, opsLeonEvents, runEvents, sessionEvents, skillEvents, teamManagerEvents, workflowEvents, requestEvents, learningEvents, evalEvents, type EventDefinition } from '@headspace/contracts';

/**
 * Every event a service appends to its log; its relay publishes them all on `hs.evt.<service>.<type>`.
 * The same lists the services' EventRegistries are built from (event-completeness.unit.spec.ts
 * holds the two together).
 */
export const publishedEvents: readonly EventDefinition[] = [...teamManagerEvents, ...sessionEvents, ...runEvents, ...askEvents, ...batchEvents, ...skillEvents, ...learningEvents, ...loopEvents, ...evalEvents, ...pluginEvents, ...workflowEvents, ...requestEvents, ...costGovernorEvents, ...opsLeonEvents, ...gatewayEvents];
