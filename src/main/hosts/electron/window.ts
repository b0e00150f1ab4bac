import { BrowserWindow } from 'electron'
import { APP_URL } from './protocol'

export interface MainWindowOptions {
  /** Absolute path of the built preload script (out/preload/index.cjs). */
  preloadPath: string
}

/** The one app window: isolated, sandboxed, and unable to navigate or open other windows. */
export function createMainWindow({ preloadPath }: MainWindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    title: 'Stepwise',
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  })
  window.once('ready-to-show', () => window.show())

  // The renderer is a single page: any navigation, redirect, popup or webview is something the app
  // did not ask for, so it is refused outright.
  const { webContents } = window
  webContents.on('will-navigate', (event) => event.preventDefault())
  webContents.on('will-redirect', (event) => event.preventDefault())
  webContents.on('will-attach-webview', (event) => event.preventDefault())
  webContents.setWindowOpenHandler(() => ({ action: 'deny' }))

  void window.loadURL(APP_URL)
  return window
}
