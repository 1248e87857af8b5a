import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { getPersonaSkill, getSkillCuration, putPersonaSkill, setSkillCuration } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { SkillCurationModes } from './skill-curation';
import { SkillEvolution } from './skill-evolution.service';

/** `get-persona-skill` / `put-persona-skill` (a persona's skill.md) and `get-skill-curation` / `set-skill-curation` (a team's mode). */
@Controller()
export class PersonaSkillHandler {
  constructor(
    private readonly evolution: SkillEvolution,
    private readonly modes: SkillCurationModes,
  ) {}

  @MessagePattern(getPersonaSkill)
  get(@Payload() r: z.output<typeof getPersonaSkill.request>) {
    return this.evolution.view(r.persona);
  }

  @MessagePattern(putPersonaSkill)
  put(@Payload() r: z.output<typeof putPersonaSkill.request>, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    return this.evolution.replace(r.persona, r.text, r.updatedBy, ctx.commandId);
  }

  @MessagePattern(getSkillCuration)
  async curation(@Payload() r: z.output<typeof getSkillCuration.request>) {
    return { team: r.team, mode: await this.modes.of(r.team) };
  }

  @MessagePattern(setSkillCuration)
  async setCuration(@Payload() r: z.output<typeof setSkillCuration.request>, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    return { team: r.team, mode: await this.modes.set(r.team, r.mode, r.setBy, ctx.commandId) };
  }
}
