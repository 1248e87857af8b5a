import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import { PERSONA_REGISTRY_STREAM } from '@headspace/contracts';
import { EventStore, handleCommand, type CommandContext } from '@headspace/event-store';
import { personaDecider, type PersonaCommand, type PersonaEvent, type PersonaState } from './persona.decider';
import { DEFAULT_PERSONAS_FILE, loadPersonasFile } from './personas-config';

export interface RegistryOutcome {
  state: PersonaState;
  /** Events this command appended (for a retried command: those its first attempt appended; empty for a no-op). */
  events: PersonaEvent[];
  streamVersion: bigint;
}

/**
 * The persona registry, its leases and its wait queue form ONE stream (`persona-registry`): the
 * exclusivity of a persona and the max-concurrency limit are invariants across all personas, so
 * they are decided against one consistency boundary with an exact expected version. Its commands
 * take the stream's turn, so concurrent commands never fail for contention.
 */
@Injectable()
export class PersonaRegistry implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger(PersonaRegistry.name);
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

  /** Runs a command through the one command handler, in the registry stream's turn (every persona command shares it). */
  async execute(
    commandId: string | undefined,
    ctx: CommandContext | undefined,
    build: (state: PersonaState) => PersonaCommand,
    internal = false,
  ): Promise<RegistryOutcome> {
    if (!internal) await this.loaded;
    const decider = { ...personaDecider, decide: (_command: null, state: PersonaState) => personaDecider.decide(build(state), state) };
    const outcome = await handleCommand(this.store, decider, PERSONA_REGISTRY_STREAM, null, { ...ctx, commandId: commandId ?? ctx?.commandId }, { turn: true });
    return { state: outcome.state, events: outcome.events, streamVersion: outcome.streamVersion };
  }
}
