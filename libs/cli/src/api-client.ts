import { CliError, ExitCode } from './exit-codes';
import type { ReadPositions } from './read-positions';

/** RFC 9457 problem details as the gateway sends them. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  field?: string;
  issues?: unknown;
  instance?: string;
}

export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
    readonly method: string,
    readonly path: string,
  ) {
    super(exitCodeForStatus(status), describeProblem(status, problem, method, path), hintFor(status, problem));
    this.name = 'ApiError';
  }
}

export function exitCodeForStatus(status: number) {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status >= 500) return ExitCode.apiServer;
  return ExitCode.apiClient;
}

function describeProblem(status: number, problem: Problem | undefined, method: string, path: string): string {
  const what = problem?.detail || problem?.title || `HTTP ${status}`;
  const field = problem?.field ? ` (field: ${problem.field})` : '';
  const code = problem?.code ? ` [${problem.code}]` : '';
  return `${method} ${path} failed with ${status}: ${what}${field}${code}`;
}

function hintFor(status: number, problem: Problem | undefined): string | undefined {
  if (status === 401) return 'Set a token: `headspace config set token <token>` or HEADSPACE_TOKEN.';
  if (status === 403) return 'The token lacks the role or team scope for this.';
  if (status === 404 && (!problem?.code || problem.code === 'HTTP.NOT_FOUND')) return 'This gateway does not offer that route (yet?).';
  if (Array.isArray(problem?.issues) && problem.issues.length > 1) {
    return (problem.issues as Array<{ path?: unknown; message?: unknown }>)
      .map((i) => `  - ${Array.isArray(i.path) ? i.path.join('.') : String(i.path ?? '')}: ${String(i.message ?? '')}`)
      .join('\n');
  }
  return undefined;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Largest page the gateway serves. */
const PAGE_SIZE = 500;

/** Thin JSON client of the gateway's REST API: bearer token, problem+json errors mapped to exit codes. */
export class ApiClient {
  constructor(
    readonly endpoint: string,
    readonly token: string | undefined,
    /** Reads pass the positions of this CLI's recent writes, so they show them (see read-positions.ts). */
    readonly positions?: ReadPositions,
  ) {}

  url(path: string, query?: RequestOptions['query']): string {
    const url = new URL(this.endpoint + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    return url.toString();
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { accept: 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...extra };
  }

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = this.url(path, options.query);
    const minPosition = method === 'GET' ? this.positions?.current() : undefined;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: this.headers({
          ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(minPosition ? { 'headspace-min-position': minPosition } : {}),
          ...options.headers,
        }),
        body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
        signal: options.signal,
      });
    } catch (error) {
      throw unreachable(this.endpoint, error);
    }
    const text = await res.text();
    const json = parseJson(text);
    if (!res.ok) throw new ApiError(res.status, json && typeof json === 'object' ? (json as Problem) : { detail: text.slice(0, 300) || undefined }, method, path);
    const position = res.headers.get('headspace-position');
    if (position) this.positions?.remember(position);
    return (json ?? {}) as T;
  }

  get<T = unknown>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  post<T = unknown>(path: string, body: unknown = {}, headers?: Record<string, string>): Promise<T> {
    return this.request<T>('POST', path, { body, headers });
  }

  /** Every item of a paged list (`{items, nextCursor}`), following the cursors. */
  async all<T = unknown>(path: string, query: RequestOptions['query'] = {}, max = 10_000): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.get<{ items?: T[]; nextCursor?: string | null } & Record<string, unknown>>(path, { limit: PAGE_SIZE, ...query, ...(cursor ? { cursor } : {}) });
      items.push(...(page.items ?? []));
      cursor = page.nextCursor ?? undefined;
    } while (cursor && items.length < max);
    return items;
  }
}

export function unreachable(endpoint: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (error as Error).message;
  return new CliError(ExitCode.apiServer, `Cannot reach the Headspace API at ${endpoint} (${why})`, 'Is the gateway running? Check `headspace config show`.');
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
