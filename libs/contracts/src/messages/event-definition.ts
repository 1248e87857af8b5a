import { z } from 'zod';
import { ErrorCodes } from '../errors/error-codes';
import { HeadspaceError } from '../errors/headspace-error';
import { parseOrThrow } from '../errors/validation-error';
import { namespacedSubject } from './namespace';
import type { ServiceName } from './service-names';

/**
 * An event contract: its owner service, stream category, name, schema version and payload schema.
 * The event type is `<category>.<name>`; its JetStream subject is `hs.evt.<service>.<category>.<name>`.
 */
export interface EventDefinition<S extends z.ZodType = z.ZodType, T extends string = string> {
  readonly service: ServiceName;
  readonly category: string;
  readonly name: string;
  readonly type: T;
  readonly schemaVersion: number;
  readonly schema: S;
  readonly subject: string;
}

const token = /^[a-z][a-z0-9-]*$/;

export function defineEvent<S extends z.ZodType, C extends string, N extends string>(def: {
  service: ServiceName;
  category: C;
  name: N;
  schemaVersion?: number;
  schema: S;
}): EventDefinition<S, `${C}.${N}`> {
  if (!token.test(def.category) || !token.test(def.name)) {
    throw new Error(`event category and name must be lowercase subject tokens: ${def.category}.${def.name}`);
  }
  const subject = `hs.evt.${def.service}.${def.category}.${def.name}`;
  return {
    service: def.service,
    category: def.category,
    name: def.name,
    type: `${def.category}.${def.name}`,
    schemaVersion: def.schemaVersion ?? 1,
    schema: def.schema,
    get subject() {
      return namespacedSubject(subject);
    },
  };
}

export type EventData<D> = D extends EventDefinition<infer S> ? z.output<S> : never;

export const eventSubjectWildcard = (service?: ServiceName) => namespacedSubject(service ? `hs.evt.${service}.>` : 'hs.evt.>');

/** The subject an event of `type` (`<category>.<name>`) owned by `service` is published on. */
export const eventSubject = (service: string, type: string) => namespacedSubject(`hs.evt.${service}.${type}`);

/** The events a store accepts. Validation on append and on read goes through here. */
export class EventRegistry {
  private readonly byType = new Map<string, EventDefinition>();

  constructor(definitions: EventDefinition[] = []) {
    for (const d of definitions) this.register(d);
  }

  register(definition: EventDefinition): this {
    const existing = this.byType.get(definition.type);
    if (existing && existing !== definition) throw new Error(`event type registered twice: ${definition.type}`);
    this.byType.set(definition.type, definition);
    return this;
  }

  get(type: string): EventDefinition {
    const definition = this.byType.get(type);
    if (!definition) {
      throw new HeadspaceError(ErrorCodes.unknownEventType, `Unknown event type "${type}"`, { field: 'type' });
    }
    return definition;
  }

  has(type: string): boolean {
    return this.byType.has(type);
  }

  /** Parses an event payload against its contract; a ValidationError names the offending field. */
  parse(type: string, data: unknown): unknown {
    return parseOrThrow(this.get(type).schema, data, `${type} event`, 'data');
  }

  types(): string[] {
    return [...this.byType.keys()];
  }
}

export const eventMetadataSchema = z
  .object({
    commandId: z.string().optional(),
    correlationId: z.string().optional(),
    causationId: z.string().optional(),
    traceparent: z.string().optional(),
    tracestate: z.string().optional(),
    actor: z.string().optional(),
  })
  .catchall(z.unknown());

export type EventMetadata = z.infer<typeof eventMetadataSchema>;
