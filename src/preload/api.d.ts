import type { CommandInput, CommandName, CommandOutput, HostMessage } from '../shared/protocol'

/** The whole API the renderer gets from the preload bridge, as `window.stepwise`. */
export interface StepwiseApi {
  /** Sends one command to the core; rejects with a readable Error when it is refused or fails. */
  invoke<C extends CommandName>(command: C, input: CommandInput<C>): Promise<CommandOutput<C>>
  /** Subscribes to core events and host notices (`host.*`); returns the function that unsubscribes. */
  onEvent(listener: (message: HostMessage) => void): () => void
}

declare global {
  interface Window {
    stepwise: StepwiseApi
  }
}
