import type { CommandInput, CommandName, CommandOutput, StepwiseEvent } from '../shared/protocol'

/** The whole API the renderer gets from the preload bridge, as `window.stepwise`. */
export interface StepwiseApi {
  /** Sends one command to the core; rejects with a readable Error when it is refused or fails. */
  invoke<C extends CommandName>(command: C, input: CommandInput<C>): Promise<CommandOutput<C>>
  /** Subscribes to core events; returns the function that unsubscribes. */
  onEvent(listener: (event: StepwiseEvent) => void): () => void
}

declare global {
  interface Window {
    stepwise: StepwiseApi
  }
}
