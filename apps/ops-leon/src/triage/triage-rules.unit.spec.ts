import { describe, expect, it } from 'vitest';
import { applyTriageRules, guessDomain, type TriageFacts } from './triage-rules';
import { lightAnswerSchema, modelVerdict, parseAnswer, rulesVerdict } from './triage-verdict';

const settings = { frequentEvents: 100 };
const facts = (over: Partial<TriageFacts> = {}): TriageFacts => ({
  type: 'OrderNotFound',
  title: 'order <num> not found',
  message: 'order 8812 not found',
  level: 'error',
  frames: [{ module: 'src/orders.js', function: 'loadOrder' }],
  eventsInWindow: 1,
  windowSeconds: 3_600,
  spiked: false,
  ...over,
});
/** given facts → when the rules run → then their verdict. */
const given = (over: Partial<TriageFacts> = {}) => ({ then: () => applyTriageRules(facts(over), settings) });

describe('triage rules', () => {
  it('takes the severity from the level: fatal → critical, error → error, warning → warning, info/debug → noise', () => {
    expect(given({ level: 'fatal' }).then().severity).toBe('critical');
    expect(given({ level: 'error' }).then().severity).toBe('error');
    expect(given({ level: 'warning' }).then().severity).toBe('warning');
    expect(given({ level: 'info' }).then()).toMatchObject({ severity: 'noise', reasons: ['level=info → noise', 'a handled info event → noise', expect.stringMatching(/^domain /)] });
    expect(given({ level: 'debug', handled: true }).then().severity).toBe('noise');
  });

  it('makes an unhandled error at least error, even at level warning or info', () => {
    expect(given({ level: 'warning', handled: false }).then()).toMatchObject({ severity: 'error', unhandled: true, reasons: ['level=warning → warning', 'unhandled → at least error', expect.any(String)] });
    expect(given({ level: 'info', handled: false }).then().severity).toBe('error');
    expect(given({ level: 'warning', handled: true }).then()).toMatchObject({ severity: 'warning', unhandled: false });
  });

  it('raises one notch each for frequent, spiking and new in a release, never past critical', () => {
    expect(given({ eventsInWindow: 100 }).then()).toMatchObject({ severity: 'critical', reasons: ['level=error → error', 'frequent: 100 events in 3600 s (≥ 100) → critical', expect.any(String)] });
    expect(given({ eventsInWindow: 99 }).then().severity).toBe('error');
    expect(given({ level: 'warning', spiked: true }).then()).toMatchObject({ severity: 'error', reasons: expect.arrayContaining(['spike → error']) });
    expect(given({ level: 'warning', newInRelease: '1.4.0' }).then().reasons).toContain('first seen in release 1.4.0 → error');
    expect(given({ level: 'warning', spiked: true, newInRelease: '1.4.0', eventsInWindow: 500 }).then().severity).toBe('critical');
  });

  it('calls client aborts and browser chatter noise whatever their level, with the reason', () => {
    expect(given({ type: 'ClientAbortException', level: 'error', handled: false }).then()).toMatchObject({ severity: 'noise', reasons: ['ClientAbortException is a client abort → noise', expect.any(String)] });
    expect(given({ type: 'Error', message: 'request aborted', level: 'fatal' }).then().severity).toBe('noise');
    expect(given({ type: 'Error', message: 'ResizeObserver loop limit exceeded' }).then().severity).toBe('noise');
  });

  it('keeps a spiking info event noise: noise is not raised', () => {
    expect(given({ level: 'info', spiked: true, eventsInWindow: 10_000 }).then().severity).toBe('noise');
  });
});

describe('domain guess', () => {
  it('reads pg/SQL/ORM words as database, browser words as frontend, ECONNREFUSED/ENOSPC/timeouts as infrastructure, else backend', () => {
    expect(guessDomain(facts({ frames: [{ module: 'node_modules/pg/lib/client.js', function: 'Client.query' }] }))).toEqual({ domain: 'database', because: "'pg' in the frames" });
    expect(guessDomain(facts({ type: 'SequelizeDatabaseError' })).domain).toBe('database');
    expect(guessDomain(facts({ message: 'deadlock detected' })).domain).toBe('database');
    expect(guessDomain(facts({ frames: [{ filename: 'webpack:///src/components/Cart.tsx', function: 'Cart' }] })).domain).toBe('frontend');
    expect(guessDomain(facts({ frames: [], platform: 'javascript' })).domain).toBe('frontend');
    expect(guessDomain(facts({ message: 'connect ECONNREFUSED 10.0.0.7:6379' })).domain).toBe('infrastructure');
    expect(guessDomain(facts({ message: 'ENOSPC: no space left on device' })).domain).toBe('infrastructure');
    expect(guessDomain(facts())).toEqual({ domain: 'backend', because: 'nothing pointed elsewhere' });
  });
});

describe('triage verdict', () => {
  const light = (over: Record<string, unknown> = {}) =>
    parseAnswer(
      { status: 'answered', model: 'claude-haiku-4-5', simulated: true, text: `[simulated] ${JSON.stringify({ severity: 'error', domain: 'database', complex: false, autoFixable: true, hypothesis: 'h', approach: 'a', ...over })}` },
      lightAnswerSchema,
    );

  it('parses a labelled JSON answer, and names the fields of an unusable one', () => {
    expect(light()).toMatchObject({ ok: true, value: { domain: 'database' }, model: 'claude-haiku-4-5' });
    expect(light({ domain: 'kernel' })).toMatchObject({ ok: false, reason: expect.stringContaining('domain') });
    expect(parseAnswer({ status: 'answered', model: 'm', simulated: false, text: 'I think it is the database.' }, lightAnswerSchema)).toMatchObject({ ok: false, reason: 'the answer held no JSON object' });
    expect(parseAnswer({ status: 'refused', reason: 'Budget paused', code: 'BUDGET.PAUSED' }, lightAnswerSchema)).toEqual({ ok: false, reason: 'refused: Budget paused' });
  });

  it('routes by the model domain and lets the model raise the severity', () => {
    const rules = applyTriageRules(facts(), settings);
    const ok = light({ severity: 'critical' });
    if (!ok.ok) throw new Error('expected a usable answer');
    expect(modelVerdict(rules, ok)).toMatchObject({ severity: 'critical', domain: 'database', persona: 'may', source: 'model', models: ['claude-haiku-4-5'], simulated: true, autoFixable: true });
  });

  it('never lets the model lower an unhandled error below warning, and says so', () => {
    const rules = applyTriageRules(facts({ handled: false }), settings);
    const ok = light({ severity: 'noise' });
    if (!ok.ok) throw new Error('expected a usable answer');
    const verdict = modelVerdict(rules, ok);
    expect(verdict.severity).toBe('warning');
    expect(verdict.ruleReasons).toContain('model said noise; an unhandled error stays at least warning');
  });

  it('falls back to the rules without a usable answer: source rules, not auto-fixable, the reason recorded', () => {
    const rules = applyTriageRules(facts({ message: 'relation "orders" does not exist' }), settings);
    const verdict = rulesVerdict(rules, facts(), 'light model: refused: Budget paused');
    expect(verdict).toMatchObject({ source: 'rules', autoFixable: false, domain: 'database', persona: 'may', severity: 'error', models: [] });
    expect(verdict.ruleReasons.at(-1)).toBe('model: light model: refused: Budget paused');
  });

  it('keeps the light hypothesis when the deep answer is unusable, and lists both models', () => {
    const rules = applyTriageRules(facts(), settings);
    const ok = light({ complex: true, hypothesis: 'first look' });
    if (!ok.ok) throw new Error('expected a usable answer');
    const verdict = modelVerdict(rules, ok, { ok: false, reason: 'the answer held no JSON object', model: 'claude-sonnet-4-5', simulated: true });
    expect(verdict).toMatchObject({ hypothesis: 'first look', complex: true, models: ['claude-haiku-4-5', 'claude-sonnet-4-5'] });
    expect(verdict.ruleReasons.at(-1)).toMatch(/^deep model: the answer held no JSON object/);
  });
});
