import type React from 'react'
import { useState } from 'react'
import { askPermission, chime, notificationsAllowed } from './notify'
import { setAttentionPrefs, useAttentionPrefs } from './prefs'

/** Settings › Notifications: saved at once on this device, as the theme is. */
export function NotificationSettings(): React.JSX.Element {
  const prefs = useAttentionPrefs()
  const [refused, setRefused] = useState(() => !notificationsAllowed())

  const toggleNotify = async (on: boolean): Promise<void> => {
    setAttentionPrefs({ notify: on })
    if (on) setRefused(!(await askPermission()))
  }

  return (
    <fieldset className="settings-fieldset" data-testid="settings-notifications">
      <legend>Notifications</legend>
      <label className="settings-check">
        <input
          type="checkbox"
          data-testid="notify-toggle"
          checked={prefs.notify}
          onChange={(e) => void toggleNotify(e.target.checked)}
        />
        <span>When the app is in the background, notify me when an approval waits or a turn ends</span>
      </label>
      <label className="settings-check">
        <input
          type="checkbox"
          data-testid="notify-sound"
          checked={prefs.sound}
          disabled={!prefs.notify}
          onChange={(e) => {
            setAttentionPrefs({ sound: e.target.checked })
            if (e.target.checked) chime()
          }}
        />
        <span>With a short sound</span>
      </label>
      {prefs.notify && refused && (
        <p className="ui-note" data-testid="notify-refused">
          Notifications are blocked for this app: allow them in the browser&apos;s site settings (or the
          system&apos;s notification settings) to see them.
        </p>
      )}
    </fieldset>
  )
}
