import type {
  GetExceptionGroupResponses,
  GetRunDiffResponses,
  GetRunResponses,
  GetTaskBoardResponses,
  GetTeamBudgetResponses,
  ListApprovalsResponses,
  ListExceptionGroupsResponses,
  ListKnownTeamsResponses,
  ListInboxesResponses,
  ListMessagesResponses,
  ListPersonasResponses,
  ListRunsResponses,
  ListTasksResponses,
  ListTeammatesResponses,
  ListExceptionGroupTransitionsResponses,
} from './generated';

/** Shapes of the gateway's answers, named from the types generated from its OpenAPI document. */
export type Task = ListTasksResponses[200]['items'][number];
export type Board = GetTaskBoardResponses[200];
export type BoardCard = Board['tasks'][number];
export type RunSummary = ListRunsResponses[200]['items'][number];
export type Run = GetRunResponses[200];
export type RunDiff = GetRunDiffResponses[200];
export type Approval = ListApprovalsResponses[200]['items'][number];
export type Budget = GetTeamBudgetResponses[200];
export type ExceptionGroup = ListExceptionGroupsResponses[200]['items'][number];
export type ExceptionGroupDetail = GetExceptionGroupResponses[200];
export type ExceptionTransitions = ListExceptionGroupTransitionsResponses[200];
export type Personas = ListPersonasResponses[200];
export type Teammates = ListTeammatesResponses[200];
export type Inbox = ListInboxesResponses[200]['inboxes'][number];
export type Message = ListMessagesResponses[200]['items'][number];
export type KnownTeam = ListKnownTeamsResponses[200]['items'][number];
export type Spend = import('./generated').GetSpendResponses[200];
