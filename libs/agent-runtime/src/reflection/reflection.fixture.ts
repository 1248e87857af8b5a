/** A schema-valid reflection (seed 001) shared by the specs of this folder. */
export const validReflection = {
  task_result: { status: 'completed', summary: 'Added lease expiry to task claims.', files_changed: ['src/tasks/claim.ts'] },
  reflection: { what_worked: 'Test first', what_didnt: 'Guessed the clock API', confidence: 'high' },
  suggested_learnings: [
    { category: 'gotcha', content: 'The task projection lags: decide claims against the stream' },
    { category: 'cross-agent', content: 'Use TrustLevel enum from src/core/types.ts', for_agent: 'al' },
  ],
  follow_up: { needs_human: false, suggested_next: 'Add lease renewal' },
};
