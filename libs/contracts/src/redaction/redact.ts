import { isSecretName } from './secret-names';

/**
 * Secret redaction for everything that is recorded (events, JetStream, SSE) or logged. Every
 * pattern starts at a literal or at the start of a character run (a lookbehind excludes the run's
 * own characters), and every run it scans is bounded by characters it excludes, so a pass is
 * linear in the text: no backtracking blow-up on hostile tool output.
 */

/** What replaces a secret: `[redacted:<kind>]` (the kind, never any part of the value). */
export const redactedMark = (kind: string): string => `[redacted:${kind}]`;

const MARK_PREFIX = '[redacted:';
/** Literal values of secret variables shorter than this are too likely to be ordinary words. */
export const MIN_SECRET_VALUE_LENGTH = 8;

type Pass = (text: string) => string;

const hasDigit = (s: string) => /[0-9]/.test(s);

/** A replace pass: `keep` may veto a match (returns the match unchanged). */
function pass(re: RegExp, kind: string, keep?: (match: string) => boolean): Pass {
  const mark = redactedMark(kind);
  return (text) => text.replace(re, (m) => (keep?.(m) ? m : mark));
}

const TOKEN_FORMATS: Pass[] = [
  pass(/(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{10,}/g, 'anthropic-key'),
  // OpenAI-style; a run without a digit is a word ("sk-learn-compatibility-matrix"), not a key.
  pass(/(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g, 'openai-key', (m) => !hasDigit(m)),
  pass(/(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, 'github-token'),
  pass(/(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g, 'npm-token'),
  pass(/(?<![A-Za-z0-9_-])xox[a-z]-[A-Za-z0-9-]{10,}/g, 'slack-token'),
  pass(/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, 'jwt'),
  // NATS nkey seeds (a service's whole NATS identity): S + key type + 56 base32 characters.
  pass(/(?<![A-Z0-9])S[UAONCX][A-Z2-7]{56}(?![A-Z2-7])/g, 'nats-seed'),
];

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
const PEM_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
/** The body of a key whose END line is missing (truncated output): base64 lines and `Header: value` lines. */
const PEM_BODY = /(?:[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z][A-Za-z-]*:[^\n]*)?[ \t]*\r?\n)*[A-Za-z0-9+/=]*/y;

/** PEM private keys, BEGIN to END (or to the end of the base64 body when END never comes). */
function redactPem(text: string): string {
  if (!text.includes('PRIVATE KEY-----')) return text;
  let out = '';
  let from = 0;
  let endExists = true;
  PEM_BEGIN.lastIndex = 0;
  for (let begin = PEM_BEGIN.exec(text); begin; begin = PEM_BEGIN.exec(text)) {
    const bodyStart = begin.index + begin[0].length;
    let stop: number;
    const end = endExists ? ((PEM_END.lastIndex = bodyStart), PEM_END.exec(text)) : null;
    if (end) {
      stop = end.index + end[0].length;
    } else {
      // No END after here means none after any later BEGIN either: never search again (stays linear).
      endExists = false;
      PEM_BODY.lastIndex = bodyStart;
      PEM_BODY.exec(text);
      // Trailing blank lines belong to what follows, not to the key.
      stop = bodyStart + text.slice(bodyStart, PEM_BODY.lastIndex).trimEnd().length;
    }
    out += text.slice(from, begin.index) + redactedMark('private-key');
    from = stop;
    PEM_BEGIN.lastIndex = stop;
  }
  return from === 0 ? text : out + text.slice(from);
}

const AWS_KEY_ID = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g;
const AWS_SECRET = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
/** How far from an access key id its secret access key is looked for. */
const AWS_PAIR_WINDOW = 300;

/**
 * AWS access key ids, and any 40-character secret-access-key-shaped run within a few lines of one
 * (mixed case, so a hex commit id beside a key id survives).
 */
function redactAws(text: string): string {
  const ids = [...text.matchAll(AWS_KEY_ID)];
  if (ids.length === 0) return text;
  const ranges: Array<[number, number, string]> = ids.map((m) => [m.index, m.index + m[0].length, 'aws-access-key-id']);
  // Windows around the ids, merged, so each character is scanned at most once.
  let winStart = -1;
  let winEnd = -1;
  const scan = (start: number, end: number) => {
    const window = text.slice(start, end);
    for (const m of window.matchAll(AWS_SECRET)) {
      const at = start + m.index;
      const s = m[0];
      if (!/[a-z]/.test(s) || !/[A-Z]/.test(s)) continue;
      // A run cut by the window's edge is part of something longer: not a 40-character secret.
      if ((at === start && at > 0 && /[A-Za-z0-9/+=]/.test(text[at - 1])) || (at + 40 === end && end < text.length && /[A-Za-z0-9/+=]/.test(text[end]))) continue;
      ranges.push([at, at + 40, 'aws-secret-access-key']);
    }
  };
  for (const m of ids) {
    const start = Math.max(0, m.index - AWS_PAIR_WINDOW);
    const end = Math.min(text.length, m.index + m[0].length + AWS_PAIR_WINDOW);
    if (start <= winEnd) {
      winEnd = end;
      continue;
    }
    if (winEnd >= 0) scan(winStart, winEnd);
    winStart = start;
    winEnd = end;
  }
  scan(winStart, winEnd);
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, end, kind] of ranges) {
    if (start < from) continue;
    out += text.slice(from, start) + redactedMark(kind);
    from = end;
  }
  return out + text.slice(from);
}

const AUTH_SCHEME = /^(bearer|basic|token|digest)$/i;
const AUTH_HEADER = /(?<![A-Za-z0-9_-])((?:proxy-)?authorization["']?[ \t]{0,8}:[ \t]{0,8}["']?(?:(?:bearer|basic|token|digest)[ \t]+)?)([A-Za-z0-9._~+/=:-]+)/gi;
const BEARER = /(?<![A-Za-z0-9_-])(bearer\s+)([A-Za-z0-9._~+/-]{8,}=*)/gi;
const URL_PASSWORD = /(?<![A-Za-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/[^:/?#@\s]{0,256}):([^@/\s]{1,256})@/gi;
const SECRET_QUERY_PARAM = /([?&](?:sentry_key|key|apikey|sig|signature)=)([^&#\s]+)/gi;

const HEADER_AND_URL: Pass[] = [
  // A scheme word alone is not a credential (`Authorization: Bearer [redacted:…]` stays as it is).
  (text) => text.replace(AUTH_HEADER, (m, prefix: string, credential: string) => (AUTH_SCHEME.test(credential) ? m : prefix + redactedMark('authorization'))),
  // "Bearer authentication" is prose; a bearer token has a digit or is long.
  (text) => text.replace(BEARER, (m, prefix: string, token: string) => (hasDigit(token) || token.length >= 24 ? prefix + redactedMark('bearer-token') : m)),
  (text) => text.replace(URL_PASSWORD, (m, head: string, password: string) => (password.startsWith(MARK_PREFIX) ? m : `${head}:${redactedMark('password')}@`)),
  (text) => text.replace(SECRET_QUERY_PARAM, (_m, head: string) => head + redactedMark('query-param')),
];

/** `"NAME": "value"` with a secret NAME (JSON, e.g. `aws configure export-credentials`). */
const JSON_ASSIGNMENT = /("([A-Za-z_][A-Za-z0-9_-]{0,127})"\s{0,8}:\s{0,8})"((?:[^"\\\n]|\\.)*)"/g;
/** `NAME=value`, `export NAME=value`, `--password=value` (no spaces around `=`: `.env` and shell, not code). */
const ENV_ASSIGNMENT = /(?<![A-Za-z0-9_.$])([A-Za-z_][A-Za-z0-9_]{0,127}=)("[^"\n]*"|'[^'\n]*'|[^\s"'`;&|<>()]+)/g;

const keepValue = (value: string) => value === '' || value === '""' || value === "''" || /^["']?(\$|=|\[redacted:)/.test(value);

const ASSIGNMENTS: Pass[] = [
  (text) =>
    text.replace(JSON_ASSIGNMENT, (m, head: string, name: string, value: string) =>
      isSecretName(name) && !keepValue(value) ? `${head}"${redactedMark('assignment')}"` : m,
    ),
  (text) =>
    text.replace(ENV_ASSIGNMENT, (m, head: string, value: string) => {
      if (!isSecretName(head.slice(0, -1)) || keepValue(value)) return m;
      const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
      return `${head}${quote}${redactedMark('assignment')}${quote}`;
    }),
];

export interface RedactorOptions {
  /**
   * An environment whose secret-named variables' values (≥ 8 characters) are redacted wherever they
   * appear, as `[redacted:env:<NAME>]`; for URL-shaped values, their password too.
   */
  env?: Record<string, string | undefined>;
}

export interface Redactor {
  /** The text with every secret found replaced by `[redacted:<kind>]`. Idempotent. */
  text(text: string): string;
  /** A copy of a JSON-like value with every string redacted; shapes and non-strings unchanged. */
  deep<T>(value: T, options?: DeepOptions): T;
}

export interface DeepOptions {
  /** Keys whose values are kept as they are (opaque, e.g. a thinking block's signature). */
  keepKeys?: ReadonlySet<string>;
  /** Objects kept whole (opaque, e.g. a `redacted_thinking` block). */
  keepObject?: (value: Record<string, unknown>) => boolean;
  /** Deeper values are kept as they are. Default 32. */
  maxDepth?: number;
}

/** The secret values of an environment, longest first (so a value containing another goes whole). */
export function secretEnvValues(env: Record<string, string | undefined>): Array<[string, string]> {
  const found = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < MIN_SECRET_VALUE_LENGTH || !isSecretName(name)) continue;
    if (!found.has(value)) found.set(value, name);
    const password = /^[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:([^@/\s]+)@/i.exec(value)?.[1];
    if (password && password.length >= MIN_SECRET_VALUE_LENGTH && !found.has(password)) found.set(password, name);
  }
  return [...found.entries()].sort((a, b) => b[0].length - a[0].length);
}

export function createRedactor(options: RedactorOptions = {}): Redactor {
  const literals = options.env ? secretEnvValues(options.env) : [];
  const envPass: Pass = (text) => {
    for (const [value, name] of literals) if (text.includes(value)) text = text.split(value).join(redactedMark(`env:${name}`));
    return text;
  };
  const passes: Pass[] = [envPass, redactPem, ...TOKEN_FORMATS, redactAws, ...HEADER_AND_URL, ...ASSIGNMENTS];
  const text = (input: string): string => {
    if (input.length < MIN_SECRET_VALUE_LENGTH) return input;
    let out = input;
    for (const p of passes) out = p(out);
    return out;
  };
  const deep = <T>(value: T, deepOptions: DeepOptions = {}): T => redactValue(value, text, deepOptions, deepOptions.maxDepth ?? 32) as T;
  return { text, deep };
}

function redactValue(value: unknown, text: (s: string) => string, options: DeepOptions, depth: number): unknown {
  if (typeof value === 'string') return text(value);
  if (depth === 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = redactValue(v, text, options, depth - 1);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  if (options.keepObject?.(value as Record<string, unknown>)) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const r = options.keepKeys?.has(k) ? v : redactValue(v, text, options, depth - 1);
    if (r !== v) changed = true;
    out[k] = r;
  }
  return changed ? out : value;
}

let processRedactor: Redactor | undefined;

/**
 * The redactor of this process: known formats plus the values of its own secret environment
 * variables, read once on first use (a service's environment is fixed at start).
 */
export function processSecretRedactor(): Redactor {
  processRedactor ??= createRedactor({ env: process.env });
  return processRedactor;
}
