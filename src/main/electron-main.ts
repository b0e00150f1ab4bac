// Entry of the Electron main process (out/main/electron-main.js). It only wires the Electron host together;
// the core lives in plain-Node modules that the CLI and the web host use too.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { app, BrowserWindow, dialog, session } from 'electron'
import { desktopDataDir } from './config/data-move'
import { defaultModels } from './config/defaults'
import { createCoreService } from './service/service'
import { openDataFolder } from './open-data-folder'
import { bindIpc } from './hosts/electron/ipc'
import { safeStorageKeys } from './hosts/electron/keys'
import { registerAppScheme, serveRenderer } from './hosts/electron/protocol'
import { createMainWindow } from './hosts/electron/window'

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..')
const preloadPath = join(outDir, 'preload', 'index.cjs')

registerAppScheme()

let mainWindow: BrowserWindow | undefined

function openWindow(): void {
  mainWindow = createMainWindow({ preloadPath })
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})

app.on('activate', () => {
  if (BrowserWindow.getAllWindows().length === 0) openWindow()
})

void app.whenReady().then(() => {
  // The renderer needs no device access; notifications only (an approval waits, a turn ended:
  // Settings › Notifications), which Electron shows as the OS's own.
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) =>
    callback(permission === 'notifications'),
  )
  serveRenderer(join(outDir, 'renderer'))
  // One data folder for every host; an old database in Electron's own folder moves there once.
  const { dataDir, notices: moved } = desktopDataDir(app.getPath('userData'))
  const { store, notices: opened } = openDataFolder(dataDir, { backup: true })
  const notices = [...moved, ...opened]
  const service = createCoreService({
    store,
    dataDir,
    host: 'electron',
    notices,
    defaults: defaultModels(process.env, store),
    keys: safeStorageKeys(dataDir),
    hostHandlers: {
      'fs/pick-folder': async () => {
        const picked = await dialog.showOpenDialog({ properties: ['openDirectory', 'createDirectory'] })
        return { path: picked.canceled ? null : (picked.filePaths[0] ?? null) }
      },
    },
  })
  bindIpc(service, () => mainWindow?.webContents)
  app.on('before-quit', () => {
    void service.close().finally(() => store.close())
  })
  openWindow()
})
