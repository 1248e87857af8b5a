import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { HookEngine, HookSession, ToolPermissionPolicy } from '@headspace/agent-runtime';
import { ErrorCodes, HeadspaceError, sessionStreamId, type EventData, type sessionStarted, type sessionToolCalled } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../config';
import { EnabledPlugins } from '../plugins/enabled-plugins.service';
import type { SessionPorts } from '../sessions/run-session/agent-session.runner';
import { discoverSkills, skillSources, type SkillCatalog } from './skill-discovery';
import { loadedSkillOf, skillContent, skillListing, SKILL_TOOL, SkillToolPort } from './skill-tool.port';
import { mayUseSkills } from './skill-policy';
import { askSlashCommandOf, slashCommandOf } from './slash-command';

type Started = EventData<typeof sessionStarted>;

/**
 * The skills registry (ADR 0046): which SKILL.md skills a workspace and team have (project, user,
 * the team's enabled plugins), a session's Skill tool and listing, and slash commands in asks.
 */
@Injectable()
export class SkillRegistry {
  private readonly logger = new Logger(SkillRegistry.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'HS_AGENT_HOME'>,
    private readonly store: EventStore,
    @Optional() private readonly plugins?: EnabledPlugins,
  ) {}

  /** Read afresh each time: a skill added to the project is seen by the next session. */
  async catalog(team: string, workspace: string | undefined): Promise<SkillCatalog> {
    const parts = await this.plugins?.partsFor(team);
    return discoverSkills(skillSources({ home: this.config.HS_AGENT_HOME, ...(workspace ? { workspace } : {}), pluginDirs: parts?.skillDirs ?? [] }));
  }

  /** A slash-command prompt must name a skill the ask will have (400 naming `prompt`); other prompts pass. */
  async checkSlashCommand(team: string, workspace: string, prompt: string): Promise<void> {
    const command = slashCommandOf(prompt);
    if (!command) return;
    const { skills } = await this.catalog(team, workspace.startsWith('/') ? workspace : undefined);
    if (skills.some((s) => s.key === command.skill)) return;
    throw new HeadspaceError(ErrorCodes.skillRegistryUnknownSkill, `prompt: no skill "${command.skill}" (available: ${skills.map((s) => s.key).join(', ') || 'none'})`, { field: 'prompt' });
  }

  /**
   * A session's ports with the skills: the listing appended to the system prompt, the Skill tool,
   * and for a slash-command ask the skill loaded from the start (its body in the system prompt, its
   * hooks active). Without skills the ports are unchanged; a bad SKILL.md is logged and skipped.
   */
  async decorate<T extends { ports: SessionPorts }>(started: Started, built: T, ctx: { hooks: HookEngine; session: HookSession; policy: ToolPermissionPolicy }): Promise<T> {
    const catalog = await this.catalog(started.team, started.workspace);
    for (const issue of catalog.invalid) this.logger.warn(`session ${started.sessionId}: skill skipped, ${issue.file}: ${issue.field}: ${issue.message}`);
    const command = started.situation === 'ask' ? askSlashCommandOf(started.prompt) : undefined;
    const preloaded = command ? catalog.skills.find((s) => s.key === command.skill) : undefined;
    // An allow-list without `Skill` (a read-only agent) gets no listing and no tool; a slash command the user typed still loads.
    const offered = mayUseSkills(ctx.policy) ? catalog.skills : [];
    if (offered.length === 0 && !preloaded) return built;
    const tools = new SkillToolPort(built.ports.tools, offered, ctx.hooks, ctx.session);
    const system = [...built.ports.system, ...(offered.length ? [{ type: 'text' as const, text: skillListing(offered) }] : [])];
    if (preloaded) {
      tools.activate(preloaded);
      system.push({ type: 'text', text: `# Skill loaded for this request (/${preloaded.key})\n${await skillContent(preloaded, command?.args || undefined)}` });
    }
    // A resumed session: the skills it had loaded keep their hooks active.
    for (const key of await this.loadedBefore(started.sessionId)) {
      const skill = offered.find((s) => s.key === key);
      if (skill) tools.activate(skill);
    }
    return { ...built, ports: { ...built.ports, tools, system } };
  }

  /** Skills the session's Skill calls loaded before a restart (read from its tool-called events). */
  private async loadedBefore(sessionId: string): Promise<string[]> {
    const events = await this.store.readStream(sessionStreamId(sessionId));
    return events
      .filter((e) => e.type === 'session.tool-called')
      .map((e) => e.data as EventData<typeof sessionToolCalled>)
      .filter((c) => c.tool === SKILL_TOOL && !c.isError)
      .map((c) => loadedSkillOf(c.content))
      .filter((k): k is string => k !== undefined);
  }
}
