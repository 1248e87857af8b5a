import { Global, Module } from '@nestjs/common';
import { ListSkillsHandler } from './list-skills/list-skills.handler';
import { SkillRegistry } from './skill-registry.service';

/**
 * The skills registry (issue 25 scope 2, ADR 0046): SKILL.md skills for sessions and asks. Global so
 * the session ports and the ask handler reach it. Not the persona skill files of SkillsModule (ADR 44).
 */
@Global()
@Module({
  providers: [SkillRegistry],
  controllers: [ListSkillsHandler],
  exports: [SkillRegistry],
})
export class SkillRegistryModule {}
