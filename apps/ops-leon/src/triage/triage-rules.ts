import type { ExceptionDomain, ExceptionLevel, ExceptionSeverity } from '@headspace/contracts';

/** What the rules look at: the group as opened, its latest event and its rate. */
export interface TriageFacts {
  type: string;
  title: string;
  message: string;
  level: ExceptionLevel;
  /** From the latest event; undefined when the client did not say. */
  handled?: boolean;
  platform?: string;
  /** `module`/`filename`/`function` of the in-app frames, innermost last. */
  frames: Array<{ module?: string; filename?: string; function?: string }>;
  /** Events of the group in the last window (an estimate from its count and first/last seen). */
  eventsInWindow: number;
  windowSeconds: number;
  spiked: boolean;
  /** Set when the group first appeared in this release while the project was reporting from others before. */
  newInRelease?: string;
}

export interface RulesSettings {
  /** Events in the window from which a group counts as frequent (one notch up). */
  frequentEvents: number;
}

export interface RulesVerdict {
  severity: ExceptionSeverity;
  /** An unhandled error: the model may not lower it below `warning`. */
  unhandled: boolean;
  domain: ExceptionDomain;
  /** One line per rule that fired, in the order they fired. */
  reasons: string[];
}

export const SEVERITIES: readonly ExceptionSeverity[] = ['noise', 'warning', 'error', 'critical'];
const rank = (s: ExceptionSeverity) => SEVERITIES.indexOf(s);
export const atLeast = (s: ExceptionSeverity, floor: ExceptionSeverity): ExceptionSeverity => (rank(s) >= rank(floor) ? s : floor);
const notchUp = (s: ExceptionSeverity): ExceptionSeverity => SEVERITIES[Math.min(rank(s) + 1, SEVERITIES.length - 1)];

const BY_LEVEL: Record<ExceptionLevel, ExceptionSeverity> = { fatal: 'critical', error: 'error', warning: 'warning', info: 'noise', debug: 'noise' };

/** Errors that say the client went away or the browser complained about itself, not that the code is wrong. */
const KNOWN_NOISE: Array<[RegExp, string]> = [
  [/\b(ClientAbortException|AbortError|RequestAbortedError|BadRequestError: request aborted)\b/i, 'a client abort'],
  [/\b(request aborted|client (closed|disconnected)|ERR_STREAM_PREMATURE_CLOSE|EPIPE|BrokenPipeError|ECANCELED)\b/i, 'a client abort'],
  [/ResizeObserver loop (limit exceeded|completed with undelivered notifications)/i, 'a known browser warning (ResizeObserver loop)'],
  [/^Script error\.?$/i, 'a cross-origin "Script error." without details'],
];

const DOMAIN_PATTERNS: Array<[ExceptionDomain, RegExp]> = [
  [
    'database',
    /\b(pg|pg-pool|postgres(ql)?|psql|sql(ite|state)?|mysql2?|mariadb|sequelize\w*|prisma\w*|typeorm|mikro-?orm|knex|mongoose|mongo(db)?|orm|deadlock( detected)?|duplicate key|foreign key|relation "?[\w.]+"? does not exist|QueryFailedError|could not serialize)\b/i,
  ],
  ['frontend', /\b(react(-dom)?|vue|angular|svelte|DOM|HTMLElement|document|window|browser|hydration|ChunkLoadError|jsx|tsx)\b/i],
  [
    'infrastructure',
    /\b(ECONNREFUSED|ECONNRESET|ENOSPC|ENOMEM|EMFILE|OOM(Killed)?|out of memory|ETIMEDOUT|ESOCKETTIMEDOUT|timed? ?out|timeout|EAI_AGAIN|ENOTFOUND|EHOSTUNREACH|DNS|k8s|kubernetes|kubelet|no space left on device|certificate)\b/i,
  ],
];

/**
 * Guesses the domain from the exception's words: frames first (the code it ran in), then its type
 * and message. A browser platform (`javascript`, Sentry's browser SDKs) is frontend. Backend when
 * nothing matches. Used when no model answers, and as the model's hint.
 */
export function guessDomain(facts: Pick<TriageFacts, 'frames' | 'type' | 'message' | 'title' | 'platform'>): { domain: ExceptionDomain; because: string } {
  const frameText = facts.frames.map((f) => [f.module, f.filename, f.function].filter(Boolean).join(' ')).join('\n');
  for (const [where, text] of [
    ['frames', frameText],
    ['type', facts.type],
    ['message', `${facts.message}\n${facts.title}`],
  ] as const) {
    for (const [domain, pattern] of DOMAIN_PATTERNS) {
      const hit = pattern.exec(text);
      if (hit) return { domain, because: `'${hit[0]}' in the ${where}` };
    }
  }
  if (facts.platform === 'javascript') return { domain: 'frontend', because: 'a browser platform (javascript)' };
  return { domain: 'backend', because: 'nothing pointed elsewhere' };
}

/**
 * Severity by rules: the level gives the base (fatal → critical, info/debug → noise), an unhandled
 * error is at least `error`, and being frequent, spiking or new in a release each raise it one
 * notch. Known-noise errors (client aborts, browser chatter) and handled info/debug events are
 * noise: dismissed without a model call. Every rule that fired leaves a reason line.
 */
export function applyTriageRules(facts: TriageFacts, settings: RulesSettings): RulesVerdict {
  const { domain, because } = guessDomain(facts);
  const domainLine = `domain ${domain}: ${because}`;
  const noise = KNOWN_NOISE.find(([pattern]) => pattern.test(facts.type) || pattern.test(facts.message));
  if (noise) return { severity: 'noise', unhandled: false, domain, reasons: [`${facts.type} is ${noise[1]} → noise`, domainLine] };

  const reasons: string[] = [];
  const unhandled = facts.handled === false;
  let severity = BY_LEVEL[facts.level];
  reasons.push(`level=${facts.level} → ${severity}`);
  if (facts.handled === false && rank(severity) < rank('error')) {
    severity = 'error';
    reasons.push('unhandled → at least error');
  }
  if (severity === 'noise') {
    reasons.push(`a handled ${facts.level} event → noise`, domainLine);
    return { severity, unhandled: false, domain, reasons };
  }
  if (facts.eventsInWindow >= settings.frequentEvents) {
    severity = notchUp(severity);
    reasons.push(`frequent: ${facts.eventsInWindow} events in ${facts.windowSeconds} s (≥ ${settings.frequentEvents}) → ${severity}`);
  }
  if (facts.spiked) {
    severity = notchUp(severity);
    reasons.push(`spike → ${severity}`);
  }
  if (facts.newInRelease !== undefined) {
    severity = notchUp(severity);
    reasons.push(`first seen in release ${facts.newInRelease} → ${severity}`);
  }
  reasons.push(domainLine);
  return { severity, unhandled, domain, reasons };
}
