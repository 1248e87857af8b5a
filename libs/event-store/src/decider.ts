/**
 * Business logic as pure functions (the Emmett style): `decide` turns a command and the current
 * state into events (or throws a typed error), `evolve` folds an event into state. No I/O: time and
 * ids arrive inside the command.
 */
export interface Decider<Command, State, Event> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

export function foldEvents<State, Event>(decider: Pick<Decider<unknown, State, Event>, 'evolve' | 'initialState'>, events: Event[]): State {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState());
}
