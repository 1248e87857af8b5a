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

type Typed = { type: string };

/** One small decision per command type (`decide: { claim, release, complete }`), each given only its own command. */
export type Decisions<Command extends Typed, State, Event> = {
  [T in Command['type']]: (command: Extract<Command, { type: T }>, state: State) => Event[];
};

/** The `decide` of a table of decisions: the command's type picks its function. */
export function decideByType<Command extends Typed, State, Event>(decisions: Decisions<Command, State, Event>): (command: Command, state: State) => Event[] {
  return (command, state) => (decisions[command.type as Command['type']] as (command: Command, state: State) => Event[])(command, state);
}

/** How each event type changes state; an event type without an entry leaves it as it is. */
export type Evolutions<State, Event extends Typed> = {
  [T in Event['type']]?: (state: State, event: Extract<Event, { type: T }>) => State;
};

/** The `evolve` of a table of evolutions. */
export function evolveByType<State, Event extends Typed>(evolutions: Evolutions<State, Event>): (state: State, event: Event) => State {
  return (state, event) => {
    const apply = evolutions[event.type as Event['type']] as ((state: State, event: Event) => State) | undefined;
    return apply ? apply(state, event) : state;
  };
}
