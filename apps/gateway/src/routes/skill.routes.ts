import { getPersonaSkill, getSkillCuration, putPersonaSkill, setSkillCuration } from '@headspace/contracts';
import { commandRoute, queryRoute, type ApiRoute } from './api-route';

const tag = 'skills';

/**
 * Personas' skill files (seed 000 §5.3, §7) and each team's skill curation mode. A persona's
 * skill.md is shared by every team its sessions work in, so reading and editing it takes a token of
 * every team; proposals a reflection makes are reviewed through the approvals routes (kind
 * `skill-file-update`).
 */
export const skillRoutes: ApiRoute[] = [
  queryRoute(getPersonaSkill, {
    operationId: 'getPersonaSkill',
    path: '/api/v1/personas/:persona/skill',
    tag,
    summary: "A persona's skill.md (its shipped default when it had none), with token counts against the budget and the lines pending curation",
  }),
  commandRoute(putPersonaSkill, {
    operationId: 'putPersonaSkill',
    method: 'PUT',
    path: '/api/v1/personas/:persona/skill',
    tag,
    summary: "Replace a persona's skill.md (`{ text }`, markdown starting with a `# ` title); its next session's prompt carries it",
  }),
  queryRoute(getSkillCuration, {
    operationId: 'getSkillCuration',
    path: '/api/v1/teams/:team/skill-curation',
    tag,
    summary: "How the team's sessions' skill_updates are handled: approval (default), pending or auto",
  }),
  commandRoute(setSkillCuration, {
    operationId: 'setSkillCuration',
    method: 'PUT',
    path: '/api/v1/teams/:team/skill-curation',
    tag,
    summary: 'Set the team’s skill curation mode (`{ mode: approval | pending | auto }`)',
  }),
];
