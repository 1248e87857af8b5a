import { Global, Module } from '@nestjs/common';
import { PersonaSkillHandler } from './persona-skill.handler';
import { SkillApprovalConsumer } from './skill-approval.consumer';
import { SkillCurationModes } from './skill-curation';
import { SkillEvolution } from './skill-evolution.service';

/**
 * Skill evolution (issue 22 scope 3): personas' skill.md files, the teams' curation modes, the
 * approvals that merge proposed lines, and their queries. Global: the session-learnings processor
 * hands it each reflection's `skill_updates`.
 */
@Global()
@Module({
  controllers: [PersonaSkillHandler, SkillApprovalConsumer],
  providers: [SkillEvolution, SkillCurationModes],
  exports: [SkillEvolution],
})
export class SkillsModule {}
