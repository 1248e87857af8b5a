import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import { PERSONA_REGISTRY_STREAM } from '@headspace/contracts';
import { EventStore, foldEvents, withRetry, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { personaDecider, type PersonaCommand, type PersonaEvent, type PersonaState } from './persona.decider';
import { DEFAULT_PERSONAS_FILE, loadPersonasFile } from './personas-config';
import { inStreamTurn } from '../teams/shared/stream-turn';

export interface RegistryOutcome {
  state: PersonaState;
  /** Events this command appended (for a retried command: those its first attempt appended; empty for a no-op). */
  events: PersonaEvent[];
  streamVersion: bigint;
}

/**
 * The persona registry, its leases and its wait queue form ONE stream (`persona-registry`): the
 * exclusivity of a persona and the max-concurrency limit are invariants across all personas, so
 * they are decided against one consistency boundary with an exact expected version. Commands are
 * serialised inside an instance (one connection waits, not one per request) and across instances by
 * the stream's turn (`inStreamTurn`), so concurrent commands never fail for contention.
 */
@Injectable()
export class PersonaRegistry implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger(PersonaRegistry.name);
  private tail: Promise<unknown> = Promise.resolve();
  private file?: ReturnType<typeof loadPersonasFile>;
  private loaded!: Promise<void>;
  private markLoaded!: (error?: unknown) => void;

  constructor(
    private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: { HS_PERSONAS_FILE?: string },
  ) {
    this.loaded = new Promise<void>((resolve, reject) => {
      this.markLoaded = (error) => (error ? reject(error) : resolve());
    });
    this.loaded.catch(() => undefined);
  }

  /** Validates the personas file before anything else starts: a bad file stops the service, naming the field. */
  onModuleInit(): void {
    this.file = loadPersonasFile(this.config.HS_PERSONAS_FILE || DEFAULT_PERSONAS_FILE);
  }

  /** Applies the file when its content differs from the last one applied (commands' changes survive restarts otherwise). */
  async onApplicationBootstrap(): Promise<void> {
    const file = this.file!;
    try {
      // A fresh command id: the decider skips a file whose hash is the one applied last (two instances starting together: one appends).
      await this.execute(undefined, undefined, () => ({
        type: 'load-config',
        source: file.source,
        hash: file.hash,
        config: file.config,
        now: new Date().toISOString(),
      }), true);
      this.markLoaded();
    } catch (error) {
      this.markLoaded(error);
      throw error;
    }
    this.logger.log(`personas config ${file.source} loaded (${file.config.personas.length} personas, ${file.config.pools.length} pools)`);
  }

  /**
   * Runs a command: a command id already recorded answers as its first attempt did and appends nothing;
   * otherwise read → decide → append at the exact version read.
   */
  execute(
    commandId: string | undefined,
    ctx: RequestContext | undefined,
    build: (state: PersonaState) => PersonaCommand,
    internal = false,
  ): Promise<RegistryOutcome> {
    const id = commandId ?? randomUUID();
    const run = async () => {
      if (!internal) await this.loaded;
      return withRetry(() => this.attempt(id, ctx, build), { maxAttempts: 12, baseDelayMs: 5, maxDelayMs: 100 });
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  private attempt(commandId: string, ctx: RequestContext | undefined, build: (state: PersonaState) => PersonaCommand): Promise<RegistryOutcome> {
    return inStreamTurn(this.store, PERSONA_REGISTRY_STREAM, async (client) => {
      const history = (await this.store.readStream(PERSONA_REGISTRY_STREAM, { client })) as Array<RecordedEvent & PersonaEvent>;
      const state = foldEvents(personaDecider, history);
      const version = history.length ? history[history.length - 1].streamVersion : 0n;
      // A retried command (same id) already recorded appends nothing and answers as its first attempt
      // did: from the registry as that attempt left it, not as later commands changed it.
      const through = history.findLastIndex((e) => e.metadata.commandId === commandId);
      if (through >= 0) {
        const asLeft = history.slice(0, through + 1);
        return { state: foldEvents(personaDecider, asLeft), events: asLeft.filter((e) => e.metadata.commandId === commandId), streamVersion: asLeft[through].streamVersion };
      }
      const events = personaDecider.decide(build(state), state);
      if (events.length === 0) return { state, events, streamVersion: version };
      const result = await this.store.append(PERSONA_REGISTRY_STREAM, events, {
        expected: version === 0n ? 'no-stream' : version,
        commandId,
        metadata: ctx
          ? { correlationId: ctx.correlationId, causationId: ctx.causationId ?? commandId, traceparent: ctx.traceparent, tracestate: ctx.tracestate }
          : { correlationId: commandId, causationId: commandId },
        client,
      });
      return { state: events.reduce(personaDecider.evolve, state), events, streamVersion: result.nextExpectedVersion };
    });
  }
}
