import { ipcMain, type WebContents } from 'electron'
import type { CoreService } from '../../service/types'
import { EVENT_CHANNEL, INVOKE_CHANNEL } from './channels'

// The whole ipcMain binding of the desktop app: commands go to the core service, which validates
// them against the shared protocol (the renderer is untrusted), and every event comes back out.

/** Call once, after `app` is ready. Returns the function that unbinds. */
export function bindIpc(service: CoreService, target: () => WebContents | undefined): () => void {
  ipcMain.handle(INVOKE_CHANNEL, (_event, command: unknown, input: unknown) => service.answer(command, input))
  const unsubscribe = service.subscribe((message) => {
    const contents = target()
    if (contents && !contents.isDestroyed()) contents.send(EVENT_CHANNEL, message)
  })
  return () => {
    ipcMain.removeHandler(INVOKE_CHANNEL)
    unsubscribe()
  }
}
