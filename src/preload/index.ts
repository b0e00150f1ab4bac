// The bridge between the sandboxed renderer and the main process. It exposes `invoke` and `onEvent`
// and nothing else: no raw ipcRenderer, no Node. A sandboxed preload can load only `electron`, so the
// other imports here are types or constants that the bundler inlines.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import type { CommandName, HostMessage } from '../shared/protocol'
import { EVENT_CHANNEL, INVOKE_CHANNEL, type InvokeReply } from '../main/hosts/electron/channels'
import type { StepwiseApi } from './api'

const api: StepwiseApi = {
  async invoke(command: CommandName, input: unknown) {
    const reply = (await ipcRenderer.invoke(INVOKE_CHANNEL, command, input)) as InvokeReply
    if (!reply.ok) throw new Error(reply.error)
    return reply.output as never
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
