import { apiPath, defineTool, withQuery } from './headspace-tool';
import { paging, team } from './common';

export const teamTools = [
  defineTool({
    name: 'list_teams',
    title: 'List teams',
    description: 'Lists the Headspace teams this token may see, with their lead and id. Start here to learn which team names exist.',
    input: { ...paging },
    readOnly: true,
    request: ({ limit, cursor }) => ({ method: 'GET', path: withQuery('/api/v1/teams/known', { limit, cursor }) }),
  }),
  defineTool({
    name: 'get_team',
    title: 'Get a team',
    description: 'One team: its status (active, shutting down…), description, lead and shutdown state.',
    input: { team },
    readOnly: true,
    request: ({ team }) => ({ method: 'GET', path: apiPath`/api/v1/teams/${team}` }),
  }),
];
