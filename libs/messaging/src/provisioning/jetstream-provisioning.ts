import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
  type Placement,
  type StreamInfo,
} from '@nats-io/jetstream';
import { namespacedStreamName, namespacedSubject } from '@headspace/contracts';
import { nanos } from '@nats-io/nats-core';
import { MessagingError, MessagingErrorCodes } from '../messaging-error';
import { recordDrift, type StreamDrift } from './provisioning-drift';
import { retryTransient, type TransientRetry } from './transient-retry';

export { provisioningDrift, type StreamDrift } from './provisioning-drift';

export type ProvisionAction = 'created' | 'updated' | 'unchanged';

export type StreamStorage = 'file' | 'memory';

/** Where a new stream's replicas go: a named cluster and/or servers carrying every tag. */
export interface StreamPlacement {
  cluster?: string;
  tags?: string[];
}

/** 0 (max_age) and -1 (max_bytes) mean unlimited, the most that can be kept. */
const asLimit = (value: number) => (value <= 0 ? Number.POSITIVE_INFINITY : value);

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** JetStream de-duplication window for Nats-Msg-Id (the relay's crash-replay window). Default 2 min. */
  duplicateWindowMs?: number;
  /** Age after which messages are discarded; default 0 = keep (limits retention). */
  maxAgeMs?: number;
  /** Size beyond which the oldest messages are discarded; default -1 = unlimited. */
  maxBytes?: number;
  /** R1 on one node, R3 on a cluster. Default 1. */
  replicas?: number;
  /** Default file. Fixed at creation: a different value on an existing stream is reported as drift. */
  storage?: StreamStorage;
  /** Placement of a new stream; an existing stream's placement is only reported when it differs (moving a stream is an operator's act). */
  placement?: StreamPlacement;
  description?: string;
}

export const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;

/** Retention limits of the event streams (HS_STREAM_MAX_AGE / HS_STREAM_MAX_BYTES); unlimited by default. */
export interface StreamLimits {
  maxAgeMs?: number;
  maxBytes?: number;
  /** HS_JETSTREAM_REPLICAS; default 1. */
  replicas?: number;
  /** HS_JETSTREAM_STORAGE; default file. */
  storage?: StreamStorage;
  /** HS_JETSTREAM_PLACEMENT_CLUSTER / HS_JETSTREAM_PLACEMENT_TAGS; default none. */
  placement?: StreamPlacement;
}

let streamLimits: StreamLimits = {};

/**
 * Sets the limits every event stream this process declares carries (set once at start from the
 * service's configuration, like the subject namespace): the relay that owns a stream and the
 * consumers that declare it too then agree, and do not undo each other's settings.
 */
export function setStreamLimits(limits: StreamLimits): void {
  streamLimits = { ...limits };
}

/** The default event stream of a service: `HS_EVT_<SERVICE>` capturing `hs.evt.<service>.>` (both under HS_NAMESPACE when set). */
export function eventStreamFor(service: string): StreamSpec {
  return {
    name: namespacedStreamName(`HS_EVT_${service.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`),
    subjects: [namespacedSubject(`hs.evt.${service}.>`)],
    description: `Events of ${service}, published by its relay`,
    ...(streamLimits.maxAgeMs ? { maxAgeMs: streamLimits.maxAgeMs } : {}),
    ...(streamLimits.maxBytes ? { maxBytes: streamLimits.maxBytes } : {}),
    ...(streamLimits.replicas ? { replicas: streamLimits.replicas } : {}),
    ...(streamLimits.storage ? { storage: streamLimits.storage } : {}),
    ...(placementOf(streamLimits.placement) ? { placement: streamLimits.placement } : {}),
  };
}

function placementOf(placement: StreamPlacement | undefined): Placement | undefined {
  const tags = placement?.tags?.filter(Boolean) ?? [];
  if (!placement?.cluster && tags.length === 0) return undefined;
  return { ...(placement?.cluster ? { cluster: placement.cluster } : {}), ...(tags.length ? { tags } : {}) } as Placement;
}

const describePlacement = (p: Partial<Placement> | undefined) =>
  [p?.cluster ? `cluster=${p.cluster}` : '', p?.tags?.length ? `tags=${[...p.tags].sort().join(',')}` : ''].filter(Boolean).join(' ') || 'none';

const isApiError = (error: unknown, code: number) => error instanceof JetStreamApiError && error.code === code;
const sameSet = (a: string[] = [], b: string[] = []) => a.length === b.length && a.every((s) => b.includes(s));

/**
 * Creates the stream (limits retention, the configured storage and placement) or brings an existing
 * one to the spec without lowering what an operator raised; storage and placement of an existing
 * stream are never changed. What is kept against the configuration is returned as drift, and
 * logged and counted once per process start. Idempotent and safe when several replicas start together.
 */
export function ensureStream(
  jsm: JetStreamManager,
  spec: StreamSpec,
  retry: TransientRetry = {},
): Promise<{ action: ProvisionAction; info: StreamInfo; drift: StreamDrift[] }> {
  // A service starting while NATS does (a node restarting, a meta leader being elected) waits, not exits.
  return retryTransient(() => ensureStreamOnce(jsm, spec), retry);
}

async function ensureStreamOnce(jsm: JetStreamManager, spec: StreamSpec): Promise<{ action: ProvisionAction; info: StreamInfo; drift: StreamDrift[] }> {
  const wanted = {
    subjects: spec.subjects,
    duplicate_window: nanos(spec.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS),
    max_age: nanos(spec.maxAgeMs ?? 0),
    max_bytes: spec.maxBytes && spec.maxBytes > 0 ? spec.maxBytes : -1,
    num_replicas: spec.replicas ?? 1,
    ...(spec.description ? { description: spec.description } : {}),
  };
  const wantedStorage = spec.storage === 'memory' ? StorageType.Memory : StorageType.File;
  for (let attempt = 0; attempt < 3; attempt++) {
    let info: StreamInfo;
    try {
      info = await jsm.streams.info(spec.name);
    } catch (error) {
      if (!isApiError(error, JetStreamApiCodes.StreamNotFound)) throw error;
      try {
        const placement = placementOf(spec.placement);
        const created = await jsm.streams.add({
          name: spec.name,
          storage: wantedStorage,
          ...(placement ? { placement } : {}),
          retention: RetentionPolicy.Limits,
          discard: DiscardPolicy.Old,
          ...wanted,
        });
        return { action: 'created', info: created, drift: [] };
      } catch (addError) {
        // Another replica created it in between (or the subjects overlap another stream).
        if (attempt < 2 && addError instanceof JetStreamApiError) continue;
        throw addError;
      }
    }
    const c = info.config;
    const drift: StreamDrift[] = [];
    // Storage cannot change in place; recreating the stream would drop its messages.
    if (c.storage !== wantedStorage) drift.push({ stream: spec.name, field: 'storage', wanted: wantedStorage, actual: c.storage });
    const wantedPlacement = placementOf(spec.placement);
    if (wantedPlacement && describePlacement(wantedPlacement) !== describePlacement(c.placement)) {
      drift.push({ stream: spec.name, field: 'placement', wanted: describePlacement(wantedPlacement), actual: describePlacement(c.placement) });
    }
    // An existing stream keeps replicas and retention an operator raised above the configuration.
    const target = { ...wanted };
    if (c.num_replicas > wanted.num_replicas) {
      drift.push({ stream: spec.name, field: 'num_replicas', wanted: wanted.num_replicas, actual: c.num_replicas });
      target.num_replicas = c.num_replicas;
    }
    for (const field of ['max_age', 'max_bytes'] as const) {
      if (asLimit(c[field]) > asLimit(wanted[field])) {
        drift.push({ stream: spec.name, field, wanted: wanted[field], actual: c[field] });
        target[field] = c[field];
      }
    }
    const subjects = [...(c.subjects ?? []), ...wanted.subjects.filter((s) => !(c.subjects ?? []).includes(s))];
    const unchanged =
      sameSet(c.subjects, subjects) &&
      c.duplicate_window === target.duplicate_window &&
      c.max_age === target.max_age &&
      c.max_bytes === target.max_bytes &&
      c.num_replicas === target.num_replicas;
    recordDrift(drift);
    if (unchanged) return { action: 'unchanged', info, drift };
    return { action: 'updated', info: await jsm.streams.update(spec.name, { ...c, ...target, subjects }), drift };
  }
  throw new MessagingError(MessagingErrorCodes.provisioningConflict, `Stream ${spec.name} could not be provisioned`, { details: { stream: spec.name } });
}

export interface DurableConsumerSpec {
  durable: string;
  /** One subject works on every server; several need nats-server ≥ 2.10. */
  filterSubjects: string | string[];
  /** How long a delivered message may stay unacknowledged before redelivery. Default 30 s. */
  ackWaitMs?: number;
  /** Server-side delivery limit; -1 = unlimited. */
  maxDeliver?: number;
  /**
   * Server-side redelivery delays after ack timeouts (not after naks). When set, the server uses
   * them instead of ackWait, so each must exceed the longest handler. Needs maxDeliver > length.
   */
  backoffMs?: number[];
  maxAckPending?: number;
  description?: string;
}

function consumerConfig(spec: DurableConsumerSpec): Partial<ConsumerConfig> {
  const filters = Array.isArray(spec.filterSubjects) ? spec.filterSubjects : [spec.filterSubjects];
  if (filters.length === 0) throw new Error(`durable ${spec.durable}: at least one filter subject is required`);
  return {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(spec.ackWaitMs ?? 30_000),
    max_deliver: spec.maxDeliver ?? -1,
    ...(spec.backoffMs?.length ? { backoff: spec.backoffMs.map(nanos) } : {}),
    ...(spec.maxAckPending ? { max_ack_pending: spec.maxAckPending } : {}),
    // A single filter goes in filter_subject: servers before 2.10 know no filter_subjects.
    ...(filters.length === 1 ? { filter_subject: filters[0] } : { filter_subjects: filters }),
    ...(spec.description ? { description: spec.description } : {}),
  };
}

function differs(current: ConsumerConfig, wanted: Partial<ConsumerConfig>): boolean {
  const filtersNow = current.filter_subjects?.length ? current.filter_subjects : current.filter_subject ? [current.filter_subject] : [];
  const filtersWanted = wanted.filter_subjects ?? (wanted.filter_subject ? [wanted.filter_subject] : []);
  const backoffNow = current.backoff ?? [];
  const backoffWanted = wanted.backoff ?? [];
  return (
    !sameSet(filtersNow, filtersWanted) ||
    current.max_deliver !== wanted.max_deliver ||
    (backoffWanted.length === 0 && current.ack_wait !== wanted.ack_wait) ||
    backoffNow.length !== backoffWanted.length ||
    backoffNow.some((b, i) => b !== backoffWanted[i]) ||
    (wanted.max_ack_pending !== undefined && current.max_ack_pending !== wanted.max_ack_pending)
  );
}

/** Creates a durable pull consumer with explicit ack and its stream's replicas, or updates it to the spec (raising lower replicas). Idempotent. */
export function ensureDurableConsumer(
  jsm: JetStreamManager,
  stream: string,
  spec: DurableConsumerSpec,
  retry: TransientRetry = {},
): Promise<{ action: ProvisionAction; info: ConsumerInfo }> {
  // A stream whose peers are moving (replicas raised, a leader elected) answers no API call for a while.
  return retryTransient(() => ensureDurableConsumerOnce(jsm, stream, spec), retry);
}

async function ensureDurableConsumerOnce(jsm: JetStreamManager, stream: string, spec: DurableConsumerSpec): Promise<{ action: ProvisionAction; info: ConsumerInfo }> {
  // A consumer's state is replicated like its stream's, so losing a node loses neither.
  const replicas = (await jsm.streams.info(stream)).config.num_replicas;
  const wanted = { ...consumerConfig(spec), num_replicas: replicas };
  for (let attempt = 0; attempt < 3; attempt++) {
    let info: ConsumerInfo;
    try {
      info = await jsm.consumers.info(stream, spec.durable);
    } catch (error) {
      if (!isApiError(error, JetStreamApiCodes.ConsumerNotFound)) throw error;
      try {
        return { action: 'created', info: await jsm.consumers.add(stream, wanted) };
      } catch (addError) {
        if (attempt < 2 && addError instanceof JetStreamApiError) continue;
        throw addError;
      }
    }
    if (info.config.ack_policy !== AckPolicy.Explicit || info.config.deliver_subject) {
      throw new MessagingError(MessagingErrorCodes.provisioningConflict, `Consumer ${stream}/${spec.durable} exists but is not an explicit-ack pull consumer`, {
        details: { stream, durable: spec.durable },
      });
    }
    // Replicas only rise with the stream's; a consumer an operator raised further keeps its count.
    const numReplicas = Math.max(info.config.num_replicas || replicas, replicas);
    if (!differs(info.config, wanted) && (info.config.num_replicas || replicas) === numReplicas) return { action: 'unchanged', info };
    const { durable_name: _name, ack_policy: _ack, deliver_policy: _deliver, ...updatable } = { ...wanted, num_replicas: numReplicas };
    return { action: 'updated', info: await jsm.consumers.update(stream, spec.durable, updatable) };
  }
  throw new MessagingError(MessagingErrorCodes.provisioningConflict, `Consumer ${stream}/${spec.durable} could not be provisioned`, {
    details: { stream, durable: spec.durable },
  });
}
