import { resolveToolAliases, WRITE_TOOLS } from './aliases';
import type { AgentDefinition } from './parse';

/**
 * Seed 003 Requirement 24: design limits and anti-patterns. Each rule yields a warning with a
 * stable code; none of them blocks loading (tools + disallowedTools together is an error of the
 * schema instead, Requirement 24.3).
 */
export const ANTI_PATTERN_CODES = {
  tooManyAgents: 'AGENT_ANTI_PATTERN.TOO_MANY_AGENTS',
  vagueDescription: 'AGENT_ANTI_PATTERN.VAGUE_DESCRIPTION',
  reviewerWriteAccess: 'AGENT_ANTI_PATTERN.REVIEWER_WRITE_ACCESS',
  missingMaxTurns: 'AGENT_ANTI_PATTERN.MISSING_MAX_TURNS',
  hardcodedSecret: 'AGENT_ANTI_PATTERN.HARDCODED_SECRET',
  tooManySkills: 'AGENT_ANTI_PATTERN.TOO_MANY_SKILLS',
  colorRoleMismatch: 'AGENT_ANTI_PATTERN.COLOR_ROLE_MISMATCH',
} as const;
export type AntiPatternCode = (typeof ANTI_PATTERN_CODES)[keyof typeof ANTI_PATTERN_CODES];

export interface AntiPatternWarning {
  code: AntiPatternCode;
  message: string;
  agent?: string;
  source?: string;
}

/** Recommended: 3–4 custom agents per project; more than 5 hurts dispatch accuracy. */
export const MAX_AGENTS_BEFORE_WARNING = 5;
export const MAX_SKILLS_PER_AGENT = 3;

/** Requirement 24.4 colour-role convention. */
export const COLOR_ROLES: Record<string, RegExp> = {
  red: /\b(security|secur\w*|destructive|vulnerab\w*|owasp|audit\w*)\b/i,
  purple: /\b(review\w*|qa|quality|lint\w*)\b/i,
  blue: /\b(architect\w*|planning|plan|design)\b/i,
  green: /\b(implement\w*|build\w*|develop\w*|coder|coding)\b/i,
  cyan: /\b(research\w*|read-only|explor\w*|investigat\w*)\b/i,
  orange: /\b(devops|infra\w*|deploy\w*|ci|cd|ops)\b/i,
};

const VAGUE_PHRASES = /\b(helps? with|assists? with|general[- ]purpose|various tasks|any task|all tasks|anything and everything|misc\w*|stuff|does things)\b/i;
const EXAMPLE_MARKERS = /\b(e\.g\.|for example|such as|use (?:this|it|when|for)|when (?:the|a|you)|<example>|examples?:)/i;

export function isVagueDescription(description: string): boolean {
  const words = description.trim().split(/\s+/).filter(Boolean);
  return words.length < 8 || VAGUE_PHRASES.test(description) || !EXAMPLE_MARKERS.test(description);
}

const SECRET_PATTERNS: Array<[string, RegExp]> = [
  ['Anthropic API key', /\bsk-ant-[A-Za-z0-9_-]{10,}/],
  ['OpenAI-style API key', /\bsk-[A-Za-z0-9]{20,}\b/],
  ['AWS access key id', /\bAKIA[0-9A-Z]{16}\b/],
  ['GitHub token', /\bgh[pousr]_[A-Za-z0-9]{20,}\b/],
  ['Slack token', /\bxox[baprs]-[A-Za-z0-9-]{10,}/],
  ['private key', /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/],
  ['password or token assignment', /\b(?:password|passwd|secret|api[_-]?key|token)\s*[:=]\s*["']?(?!\$\{)[A-Za-z0-9_\-+/=]{8,}/i],
];

export function findSecret(text: string): string | undefined {
  for (const [label, re] of SECRET_PATTERNS) if (re.test(text)) return label;
  return undefined;
}

function looksLikeReviewer(def: AgentDefinition): boolean {
  return /\b(review\w*|auditor|audit)\b/i.test(`${def.name.replace(/-/g, ' ')} ${def.description}`);
}

function hasWriteAccess(def: AgentDefinition): boolean {
  if (def.permissionMode === 'plan') return false;
  if (def.tools === undefined) {
    const denied = new Set(resolveToolAliases(def.disallowedTools ?? []));
    return !['Write', 'Edit', 'Bash'].every((t) => denied.has(t));
  }
  return resolveToolAliases(def.tools).some((t) => WRITE_TOOLS.has(t.replace(/\(.*\)$/, '')) && !/^Bash\(/.test(t));
}

export function checkAgentAntiPatterns(def: AgentDefinition): AntiPatternWarning[] {
  const out: AntiPatternWarning[] = [];
  const at = { agent: def.key, source: def.source };
  if (isVagueDescription(def.description)) {
    out.push({ code: ANTI_PATTERN_CODES.vagueDescription, message: `${def.key}: description is vague; make it specific and action-oriented with concrete examples ("Use when …, e.g. …")`, ...at });
  }
  if (looksLikeReviewer(def) && hasWriteAccess(def)) {
    out.push({ code: ANTI_PATTERN_CODES.reviewerWriteAccess, message: `${def.key}: a reviewer has unrestricted write access; limit tools to Read, Glob, Grep (or permissionMode: plan)`, ...at });
  }
  if (def.maxTurns === undefined) {
    out.push({ code: ANTI_PATTERN_CODES.missingMaxTurns, message: `${def.key}: maxTurns is not set; a runaway loop has no limit`, ...at });
  }
  const secret = findSecret(def.raw);
  if (secret) out.push({ code: ANTI_PATTERN_CODES.hardcodedSecret, message: `${def.key}: looks like a hardcoded ${secret}; use \${ENV_VAR} substitution`, ...at });
  if ((def.skills?.length ?? 0) > MAX_SKILLS_PER_AGENT) {
    out.push({ code: ANTI_PATTERN_CODES.tooManySkills, message: `${def.key}: loads ${def.skills?.length} skills (more than ${MAX_SKILLS_PER_AGENT})`, ...at });
  }
  if (def.color) {
    const text = `${def.name.replace(/-/g, ' ')} ${def.description}`;
    const matching = Object.entries(COLOR_ROLES).filter(([, re]) => re.test(text)).map(([c]) => c);
    if (matching.length > 0 && !matching.includes(def.color)) {
      out.push({ code: ANTI_PATTERN_CODES.colorRoleMismatch, message: `${def.key}: colour ${def.color} does not match its role (convention suggests ${matching.join(' or ')})`, ...at });
    }
  }
  return out;
}

export function checkAntiPatterns(defs: readonly AgentDefinition[]): AntiPatternWarning[] {
  const out: AntiPatternWarning[] = [];
  const custom = defs.filter((d) => d.scope !== 'built-in');
  if (custom.length > MAX_AGENTS_BEFORE_WARNING) {
    out.push({ code: ANTI_PATTERN_CODES.tooManyAgents, message: `${custom.length} custom agents registered; keep to 3–4 (more than ${MAX_AGENTS_BEFORE_WARNING} hurts dispatch accuracy)` });
  }
  for (const d of custom) out.push(...checkAgentAntiPatterns(d));
  return out;
}
