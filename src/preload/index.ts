// The bridge between the sandboxed renderer and the main process. It exposes `invoke` and `onEvent`
// and nothing else: no raw ipcRenderer, no Node. A sandboxed preload can load only `electron`, so the
// other imports here are types, constants or small dependency-free functions that the bundler inlines.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import type { CommandName, HostMessage } from '../shared/protocol'
import { EVENT_CHANNEL, INVOKE_CHANNEL } from '../main/hosts/electron/channels'
import { isRecord } from '../shared/records'
import type { StepwiseApi } from './api'

/** The output of an `InvokeReply` from the main process, or its error thrown. Checked here: IPC carries no types. */
function replyOutput(reply: unknown): unknown {
  if (!isRecord(reply) || typeof reply.ok !== 'boolean')
    throw new Error(
      'The main process answered a command with something that is not a reply; restart the app.',
    )
  if (reply.ok) return reply.output
  throw new Error(typeof reply.error === 'string' ? reply.error : 'The command failed.')
}

const api: StepwiseApi = {
  async invoke(command: CommandName, input: unknown) {
    const output = replyOutput(await ipcRenderer.invoke(INVOKE_CHANNEL, command, input))
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the core typed this output as the command's CommandOutput (runCommand in service.ts); structured clone over IPC cannot carry that type, and re-parsing every reply in the preload would bundle the protocol's schemas into it
    return output as never
  },
  onEvent(listener) {
    // Wrapped so the renderer never sees the IpcRendererEvent (it carries `sender`).
    const forward = (_event: IpcRendererEvent, payload: HostMessage): void => listener(payload)
    ipcRenderer.on(EVENT_CHANNEL, forward)
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, forward)
    }
  },
}

contextBridge.exposeInMainWorld('stepwise', api)
