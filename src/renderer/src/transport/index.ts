import type { StepwiseApi } from '../../../preload/api'
import { createWebSocketApi } from './ws'

/**
 * The host connection: the preload bridge inside Electron, else the web host's
 * WebSocket (`stepwise serve`). The rest of the renderer sees one StepwiseApi.
 */
export function hostApi(): StepwiseApi {
  if (typeof window !== 'undefined') {
    // Only the desktop app's preload sets it; the web host's page has no bridge, whatever the global type says.
    const page: { stepwise?: StepwiseApi } = window
    if (page.stepwise) return page.stepwise
  }
  return createWebSocketApi()
}
