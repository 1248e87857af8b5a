import { extractJsonObject } from '@headspace/llm';
import { exceptionDomainSchema, exceptionSeveritySchema, type ExceptionDomain, type ExceptionSeverity } from '@headspace/contracts';
import { z } from 'zod';
import type { ModelAnswer } from '../model/model-port';
import { personaForDomain } from './routing';
import { atLeast, type RulesVerdict } from './triage-rules';

const sentence = z.string().trim().min(1).max(4_000);

export const lightAnswerSchema = z.object({
  severity: exceptionSeveritySchema,
  domain: exceptionDomainSchema,
  complex: z.boolean(),
  autoFixable: z.boolean(),
  hypothesis: sentence,
  approach: sentence,
});
export type LightAnswer = z.output<typeof lightAnswerSchema>;

export const deepAnswerSchema = z.object({ hypothesis: sentence, approach: sentence, autoFixable: z.boolean().optional() });
export type DeepAnswer = z.output<typeof deepAnswerSchema>;

/** What record-triage records. */
export interface TriageVerdict {
  severity: ExceptionSeverity;
  domain: ExceptionDomain;
  persona: string;
  autoFixable: boolean;
  complex: boolean;
  hypothesis: string;
  approach?: string;
  ruleReasons: string[];
  source: 'rules' | 'model';
  models: string[];
  simulated: boolean;
}

export type Parsed<T> = { ok: true; value: T; model: string; simulated: boolean } | { ok: false; reason: string; model?: string; simulated?: boolean };

/** A model's answer as `schema` wants it, or why not (refused, no JSON, or the fields that were wrong). */
export function parseAnswer<T>(answer: ModelAnswer, schema: z.ZodType<T>): Parsed<T> {
  if (answer.status === 'refused') return { ok: false, reason: `refused: ${answer.reason}` };
  const seen = { model: answer.model, simulated: answer.simulated };
  const json = extractJsonObject(answer.text);
  if (!json) return { ok: false, reason: 'the answer held no JSON object', ...seen };
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: `unusable answer (${parsed.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ')})`, ...seen };
  return { ok: true, value: parsed.data, ...seen };
}

/** Rules alone: noise, triage switched to rules, or no usable model answer (`why`). Never auto-fixable. */
export function rulesVerdict(rules: RulesVerdict, facts: { type: string; title: string }, why?: string, called: Array<{ model?: string; simulated?: boolean }> = []): TriageVerdict {
  const hypothesis =
    rules.severity === 'noise'
      ? `Noise: ${rules.reasons[0]}`
      : `Rules only${why ? ` (${why})` : ''}: ${facts.type} "${facts.title}"; no root-cause hypothesis without a model.`;
  return {
    severity: rules.severity,
    domain: rules.domain,
    persona: personaForDomain(rules.domain),
    autoFixable: false,
    complex: false,
    hypothesis: hypothesis.slice(0, 2_000),
    ruleReasons: why ? [...rules.reasons, `model: ${why}`] : rules.reasons,
    source: 'rules',
    models: called.flatMap((c) => (c.model ? [c.model] : [])),
    simulated: called.some((c) => c.simulated === true),
  };
}

/**
 * The model's verdict over the rules'. The model may raise the severity; it may lower it too
 * (it has read the code's context the rules have not), but never an unhandled error below
 * `warning`: a crash is never dismissed as noise on a model's word.
 */
export function modelVerdict(rules: RulesVerdict, light: Extract<Parsed<LightAnswer>, { ok: true }>, deep?: Parsed<DeepAnswer>): TriageVerdict {
  const reasons = [...rules.reasons];
  let severity = light.value.severity;
  if (rules.unhandled && severity !== atLeast(severity, 'warning')) {
    reasons.push(`model said ${severity}; an unhandled error stays at least warning`);
    severity = 'warning';
  } else if (severity !== rules.severity) {
    reasons.push(`model: ${rules.severity} → ${severity}`);
  }
  if (light.value.domain !== rules.domain) reasons.push(`model: domain ${light.value.domain}`);
  const models = [light.model];
  let { hypothesis, approach, autoFixable } = light.value;
  if (deep?.ok) {
    models.push(deep.model);
    ({ hypothesis, approach } = deep.value);
    autoFixable = deep.value.autoFixable ?? autoFixable;
  } else if (deep) {
    if (deep.model) models.push(deep.model);
    reasons.push(`deep model: ${deep.reason}; the light model's hypothesis stands`);
  }
  return {
    severity,
    domain: light.value.domain,
    persona: personaForDomain(light.value.domain),
    autoFixable,
    complex: light.value.complex,
    hypothesis: hypothesis.slice(0, 2_000),
    approach: approach.slice(0, 2_000),
    ruleReasons: reasons,
    source: 'model',
    models,
    simulated: light.simulated || (deep?.ok ? deep.simulated : deep?.simulated === true),
  };
}
