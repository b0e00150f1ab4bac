// Entry of the Electron main process (out/main/index.js). It only wires the Electron host together;
// the core lives in plain-Node modules that the CLI uses too.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { app, BrowserWindow, session } from 'electron'
import { bindIpc } from './hosts/electron/ipc'
import { registerAppScheme, serveRenderer } from './hosts/electron/protocol'
import { createMainWindow } from './hosts/electron/window'

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..')
const preloadPath = join(outDir, 'preload', 'index.cjs')

registerAppScheme()

function openWindow(): void {
  createMainWindow({ preloadPath })
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})

app.on('activate', () => {
  if (BrowserWindow.getAllWindows().length === 0) openWindow()
})

void app.whenReady().then(() => {
  // The renderer needs no device or notification access; refuse every permission request.
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false))
  serveRenderer(join(outDir, 'renderer'))
  bindIpc()
  openWindow()
})
