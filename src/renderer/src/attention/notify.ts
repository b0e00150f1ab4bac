import { attentionPrefs } from './prefs'

/*
 * One call for attention: the browser's Notification API (in `stepwise serve`, and in the desktop app,
 * where Electron shows it as the OS's own notification) and an optional chime. Only while the window
 * is in the background: in front, the app itself shows what happened.
 */

export function inBackground(): boolean {
  return document.hidden || !document.hasFocus()
}

/** Whether notifications can be shown: supported, and not refused. */
export function notificationsAllowed(): boolean {
  return typeof Notification !== 'undefined' && Notification.permission !== 'denied'
}

/** Asks for permission (the browser wants a click behind it); true when granted. */
export async function askPermission(): Promise<boolean> {
  if (typeof Notification === 'undefined') return false
  if (Notification.permission === 'granted') return true
  if (Notification.permission === 'denied') return false
  return (await Notification.requestPermission()) === 'granted'
}

let audio: AudioContext | null = null

/** Two short soft tones, made here (no sound file to ship). */
export function chime(): void {
  try {
    audio ??= new AudioContext()
    const ctx = audio
    for (const [i, freq] of [660, 880].entries()) {
      const osc = ctx.createOscillator()
      const gain = ctx.createGain()
      const t = ctx.currentTime + i * 0.14
      osc.frequency.value = freq
      gain.gain.setValueAtTime(0.0001, t)
      gain.gain.exponentialRampToValueAtTime(0.15, t + 0.02)
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.12)
      osc.connect(gain).connect(ctx.destination)
      osc.start(t)
      osc.stop(t + 0.13)
    }
  } catch {
    // No audio output: the notification alone.
  }
}

/** Calls for attention when the window is in the background and the user wants it. */
export function callAttention(title: string, body: string, tag: string): void {
  const prefs = attentionPrefs()
  if (!prefs.notify || !inBackground()) return
  if (prefs.sound) chime()
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return
  const n = new Notification(title, { body, tag })
  n.onclick = () => {
    window.focus()
    n.close()
  }
}
