/**
 * Prompt composition in seed 001's order: identity, role, owned paths, skill file and learnings,
 * reflection protocol, then the task. Pure: it returns layered blocks so the LLM client can put a
 * cache breakpoint after the last stable layer (identity/role/owns/skill/learnings/protocol do not
 * change within a session; handoff, mail and task do).
 */
export type PromptLayer = 'identity' | 'role' | 'owns' | 'skill' | 'learnings' | 'reflection-protocol' | 'handoff' | 'task' | 'mail';

export interface PromptBlock {
  layer: PromptLayer;
  text: string;
  /** Same bytes on every turn of the session: cacheable. */
  stable: boolean;
  /** System prompt (persona) or first user message (work). */
  target: 'system' | 'user';
}

export interface PromptInput {
  identity: { name: string; description?: string };
  role?: string;
  owns?: readonly string[];
  skillFile?: string;
  learnings?: string;
  /** true (default): the seed's protocol text; a string replaces it; false leaves it out. */
  reflectionProtocol?: boolean | string;
  /** A rendered handoff artefact the session continues from. */
  handoff?: string;
  task: string;
  /** Unread mail, already rendered as `<teammate-message>` blocks. */
  mail?: string;
}

export interface ComposedPrompt {
  blocks: PromptBlock[];
  system: string;
  user: string;
  /** Index in `blocks` of the last stable block: put the cache breakpoint there (-1: none). */
  cacheBreakpointIndex: number;
}

/** The seed's reflection protocol text (seed 001 spawn protocol). */
export const REFLECTION_PROTOCOL = [
  '## Reflection Protocol',
  'After completing your task, return structured JSON matching the reflection schema.',
  'Include honest self-assessment in the reflection section.',
  'Suggest learnings that should be persisted for future spawns.',
].join('\n');

export function composePrompt(input: PromptInput): ComposedPrompt {
  const blocks: PromptBlock[] = [];
  const push = (layer: PromptLayer, text: string | undefined, stable: boolean, target: PromptBlock['target']) => {
    if (text !== undefined && text.length > 0) blocks.push({ layer, text, stable, target });
  };
  const identity = [`# Team Member: ${input.identity.name}`, input.identity.description].filter(Boolean).join('\n');
  push('identity', identity, true, 'system');
  push('role', input.role ? `Role: ${input.role}` : undefined, true, 'system');
  push('owns', input.owns && input.owns.length > 0 ? `Owns: ${input.owns.join(', ')}` : undefined, true, 'system');
  push('skill', input.skillFile ? `## Your Skill File\n${input.skillFile.trimEnd()}` : undefined, true, 'system');
  push('learnings', input.learnings ? `## Your Accumulated Learnings\n${input.learnings.trimEnd()}` : undefined, true, 'system');
  const protocol = input.reflectionProtocol ?? true;
  push('reflection-protocol', protocol === true ? REFLECTION_PROTOCOL : protocol === false ? undefined : protocol, true, 'system');
  push('handoff', input.handoff ? `## Handoff From Your Previous Session\n${input.handoff}` : undefined, false, 'user');
  push('task', `## Task\n${input.task}`, false, 'user');
  push('mail', input.mail, false, 'user');
  let cacheBreakpointIndex = -1;
  blocks.forEach((b, i) => {
    if (b.stable) cacheBreakpointIndex = i;
  });
  return {
    blocks,
    system: blocks.filter((b) => b.target === 'system').map((b) => b.text).join('\n\n'),
    user: blocks.filter((b) => b.target === 'user').map((b) => b.text).join('\n\n'),
    cacheBreakpointIndex,
  };
}
