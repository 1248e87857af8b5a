import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { defineTool, hookDecisions, ok, runTool, ToolRegistry, toAnthropicTool, type HookEngine, type HookSession } from '@headspace/agent-runtime';
import { z } from 'zod';
import type { ToolOutcome, ToolPort } from '../sessions/run-session/session-ports';
import type { ConversationBlock } from '../sessions/session-conversation';
import type { Skill } from './skill-discovery';

/** Claude Code's name for the tool that loads a skill. */
export const SKILL_TOOL = 'Skill';

const skillInput = z.object({
  skill: z.string().min(1).max(200).describe('The name of a skill from the list of available skills (a plugin skill as `plugin:name`).'),
  args: z.string().max(10_000).optional().describe('Arguments for the skill, if it takes any.'),
});

/** The skill a successful Skill call's result loaded (its `<skill name="…">` opening). */
export const loadedSkillOf = (content: string): string | undefined => /^<skill name="([^"]+)"/.exec(content)?.[1];

/** What the model reads when it loads a skill: its instructions, its folder and its other files. */
export async function skillContent(skill: Skill, args?: string): Promise<string> {
  const files = await readdir(skill.dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const others = files
    .filter((f) => f.isFile())
    .map((f) => relative(skill.dir, join(f.parentPath, f.name)))
    .filter((f) => f !== 'SKILL.md')
    .sort()
    .slice(0, 50);
  return [
    `<skill name="${skill.key}" dir="${skill.dir}">`,
    skill.body,
    ...(others.length ? [`Other files of this skill (read them from ${skill.dir} when its instructions need them): ${others.join(', ')}`] : []),
    ...(args ? [`Arguments: ${args}`] : []),
    '</skill>',
  ].join('\n\n');
}

/**
 * Progressive disclosure (seed 003 Req 10, ADR 0046): the session's ToolPort plus a `Skill` tool.
 * The system prompt lists only the skills' names and descriptions; calling the tool puts a skill's
 * body into the conversation (as the tool result) and activates the hooks of its frontmatter on
 * this session's engine — a skill's hooks never fire before it is loaded. A skill loaded from the
 * start (a slash-command ask) is activated by `preload`.
 */
export class SkillToolPort implements ToolPort {
  private readonly byKey: Map<string, Skill>;
  private readonly loaded = new Set<string>();
  private readonly registry: ToolRegistry;
  private readonly definition: ConversationBlock;
  private innerDefs?: ConversationBlock[];
  private defs?: ConversationBlock[];

  constructor(
    private readonly inner: ToolPort,
    skills: readonly Skill[],
    private readonly hooks: HookEngine,
    private readonly session: HookSession,
  ) {
    this.byKey = new Map(skills.map((s) => [s.key, s]));
    const tool = defineTool({
      name: SKILL_TOOL,
      description: 'Load a skill: its instructions come back as the result. Use it when the request matches the description of one of the available skills listed in the system prompt, before doing the work.',
      schema: skillInput,
      execute: async (input) => {
        const skill = this.byKey.get(input.skill.replace(/^\//, ''));
        if (!skill) throw new Error(`No skill "${input.skill}". Available: ${[...this.byKey.keys()].join(', ') || 'none'}`);
        this.activate(skill);
        return ok(await skillContent(skill, input.args));
      },
    });
    this.registry = new ToolRegistry({ tools: [tool] });
    this.definition = toAnthropicTool(tool) as unknown as ConversationBlock;
  }

  /** Activates a skill's hooks once (the Skill tool, or a slash command before the first turn). */
  activate(skill: Pick<Skill, 'key' | 'hooks' | 'file'>): void {
    if (this.loaded.has(skill.key)) return;
    this.loaded.add(skill.key);
    if (skill.hooks) this.hooks.addHooks('skill', skill.hooks, { source: skill.file });
  }

  /** The Skill tool first and fixed, so every earlier request's tools array stays a prefix of the next (prompt cache); none without skills to offer. */
  definitions(): ConversationBlock[] {
    const inner = this.inner.definitions();
    if (this.byKey.size === 0) return inner;
    if (inner !== this.innerDefs || !this.defs) {
      this.innerDefs = inner;
      this.defs = [this.definition, ...inner];
    }
    return this.defs;
  }

  async run(call: { id: string; name: string; input: unknown }): Promise<ToolOutcome> {
    if (call.name !== SKILL_TOOL || this.byKey.size === 0) return this.inner.run(call);
    const out = await runTool({
      registry: this.registry,
      call: { id: call.id, name: call.name, input: call.input } as never,
      ctx: { workspaceRoot: this.session.cwd, agentId: this.session.agentId ?? this.session.sessionId, sessionId: this.session.sessionId },
      hooks: this.hooks,
      session: this.session,
    });
    const extra = out.additionalContext.length ? `\n\n${out.additionalContext.join('\n')}` : '';
    return { content: `${out.result.content}${extra}`, isError: out.result.isError, filesModified: [], hooks: hookDecisions(out.outcomes) };
  }

  typeOf(name: string): 'function' | 'extension' {
    return name === SKILL_TOOL ? 'function' : (this.inner.typeOf?.(name) ?? 'function');
  }

  onStop(lastText: string): Promise<string | undefined> {
    return this.inner.onStop(lastText);
  }
}

/** The system prompt's skill listing: names and descriptions only, never a body. */
export function skillListing(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  return [
    '# Available skills',
    `Load a skill with the ${SKILL_TOOL} tool when a request matches its description; its instructions come back then (not before).`,
    ...skills.map((s) => `- ${s.key}: ${s.description}${s.triggers.length ? ` (triggers: ${s.triggers.join(', ')})` : ''}`),
  ].join('\n');
}
