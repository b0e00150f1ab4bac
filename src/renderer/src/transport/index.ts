import type { StepwiseApi } from '../../../preload/api'
import { createWebSocketApi } from './ws'

/**
 * The host connection: the preload bridge inside Electron, else the web host's
 * WebSocket (`stepwise serve`). The rest of the renderer sees one StepwiseApi.
 */
export function hostApi(): StepwiseApi {
  if (typeof window !== 'undefined' && 'stepwise' in window && window.stepwise) return window.stepwise
  return createWebSocketApi()
}
