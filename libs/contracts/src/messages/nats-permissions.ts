import { ServiceNames, type ServiceName } from './service-names';

/**
 * Who may say what on NATS (ARCHITECTURE.md §9: each service has its own credentials, only its
 * subjects). The table is per service, not per contract: a service may call every command and
 * query of the services it talks to, so a new contract needs no new grant, while a service that
 * has no business with another (the team-manager with the cost-governor) cannot reach it at all.
 * The server config that enforces it is generated from here (libs/testing/src/infra/nats-auth.ts).
 */
export interface ServiceNatsRoutes {
  /** Services whose `hs.cmd.*` / `hs.qry.*` subjects it requests (its own are always allowed). */
  calls: readonly ServiceName[];
  /** Services whose event streams it reads with JetStream consumers. */
  consumes: readonly ServiceName[];
  /** Owns `hs.evt.<service>.>` and the stream `HS_EVT_<SERVICE>` (its relay publishes there). */
  ownsEvents: boolean;
  /** Answers `hs.cmd.<service>.>` / `hs.qry.<service>.>`. */
  serves: boolean;
  /** Tails streams with ordered consumers (it creates and deletes ephemeral consumers). */
  orderedConsumers?: boolean;
}

const OTHERS = (self: ServiceName) => ServiceNames.filter((s) => s !== self);

export const SERVICE_NATS_ROUTES: Readonly<Record<ServiceName, ServiceNatsRoutes>> = {
  // The front door: the REST API maps onto every service's commands and queries (HTTP roles decide
  // who may call what); the SSE stream tails every event stream. Its own stream holds the webhook
  // subscriptions' events (ADR 0027); it serves nothing.
  gateway: { calls: OTHERS('gateway'), consumes: ServiceNames, ownsEvents: true, serves: false, orderedConsumers: true },
  // Every service reports its own unhandled errors to Leon (ops-leon's report-exception).
  'team-manager': { calls: ['ops-leon'], consumes: [], ownsEvents: true, serves: true },
  // Drives the team board and mail (team-manager) and asks the governor before spending; reacts to
  // team.created; reports hook failures and its own errors to Leon.
  orchestrator: { calls: ['team-manager', 'cost-governor', 'ops-leon'], consumes: ['team-manager'], ownsEvents: true, serves: true },
  // Budget overruns become team approvals; reacts to approval.decided.
  'cost-governor': { calls: ['team-manager', 'ops-leon'], consumes: ['team-manager'], ownsEvents: true, serves: true },
  // Owns the exception streams. Triage asks the governor before each model call; remediation puts fix
  // approvals in the team-manager's queue and asks the orchestrator for fix runs (ARCHITECTURE.md §1),
  // and follows approval.decided and the fix runs' events. Reads its own stream too: notifications
  // and triage follow every group lifecycle event through durable consumers (ADR 0022).
  'ops-leon': { calls: ['orchestrator', 'team-manager', 'cost-governor'], consumes: ['ops-leon', 'team-manager', 'orchestrator'], ownsEvents: true, serves: true },
};

/** nats-server `permissions` of one user (the server config's JSON form). */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** May answer the requests it received (reply subjects), and nothing else in other inboxes. */
  allow_responses: true;
}

// The same prefixes as contracts' namespace.ts, for a namespace passed in rather than the process's.
const subjectIn = (namespace: string | undefined, subject: string) => (namespace ? `${namespace}.${subject}` : subject);
const streamIn = (namespace: string | undefined, name: string) =>
  namespace ? `${namespace.toUpperCase().replace(/-/g, '_')}_${name}` : name;

/** `HS_EVT_<SERVICE>` under the namespace (as eventStreamFor names it). */
export const eventStreamName = (service: ServiceName, namespace?: string) =>
  streamIn(namespace, `HS_EVT_${service.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`);

/**
 * The inbox prefix of a service's connection: replies, JetStream API answers and pull-consumer
 * deliveries arrive under it, and its credentials may subscribe to nothing else, so one service
 * cannot read the replies meant for another.
 */
export const serviceInboxPrefix = (service: string, namespace?: string) => `_INBOX.${namespace ? `${namespace}.` : ''}${service}`;

/** JetStream API subjects for reading a stream with consumers (durable pull, or ordered). */
function consumerApi(stream: string, ordered: boolean): string[] {
  return [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
    `$JS.ACK.${stream}.>`,
    ...(ordered ? [`$JS.API.CONSUMER.DELETE.${stream}.>`] : []),
  ];
}

/** What the credentials of `service` may publish and subscribe to (HS_NAMESPACE `namespace`). */
export function servicePermissions(service: ServiceName, namespace?: string): NatsPermissions {
  const routes = SERVICE_NATS_ROUTES[service];
  const requests = (s: ServiceName) => [subjectIn(namespace, `hs.cmd.${s}.>`), subjectIn(namespace, `hs.qry.${s}.>`)];
  const publish = new Set<string>(['$JS.API.INFO']);
  const subscribe = new Set<string>([`${serviceInboxPrefix(service, namespace)}.>`]);
  for (const s of [...(routes.serves ? [service] : []), ...routes.calls]) requests(s).forEach((subject) => publish.add(subject));
  if (routes.serves) requests(service).forEach((subject) => subscribe.add(subject));
  if (routes.ownsEvents) {
    const own = eventStreamName(service, namespace);
    publish.add(subjectIn(namespace, `hs.evt.${service}.>`));
    // The relay declares its stream, keeps it at its spec and reads it back after a crash.
    for (const op of ['INFO', 'CREATE', 'UPDATE', 'MSG.GET']) publish.add(`$JS.API.STREAM.${op}.${own}`);
  }
  for (const s of routes.consumes) {
    const stream = eventStreamName(s, namespace);
    // A consumer declares the stream it reads when it starts before the owner; only the owner changes it.
    publish.add(`$JS.API.STREAM.CREATE.${stream}`);
    consumerApi(stream, routes.orderedConsumers === true).forEach((subject) => publish.add(subject));
  }
  if (routes.orderedConsumers) publish.add('$JS.API.STREAM.NAMES'); // the SSE hub discovers event streams
  return { publish: { allow: [...publish] }, subscribe: { allow: [...subscribe] }, allow_responses: true };
}
