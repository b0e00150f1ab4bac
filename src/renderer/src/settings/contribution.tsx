import { contribute } from '../panels/registry'
import { SettingsDialog } from './SettingsDialog'
import { openSettings, SETTINGS_PANEL } from './settingsUi'

/** Settings: its dialog and the command that opens it. */
export const contributeSettings = (): (() => void) =>
  contribute({
    feature: 'settings',
    dialogs: [{ id: SETTINGS_PANEL, component: SettingsDialog }],
    commands: [
      {
        id: 'settings',
        slash: 'settings',
        title: 'Settings',
        hint: 'Approvals, commands, limits, theme',
        keywords: 'preferences options theme approval policy',
        run: openSettings,
      },
    ],
  })
