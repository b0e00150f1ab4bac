import { contributeApproval } from '../approval/contribution'
import { contributeMcp } from '../mcp/contribution'
import { contributeModels } from '../models/contribution'
import { contributePalette } from '../palette/contribution'
import { contributeProject } from '../project/contribution'
import { contributeReplay } from '../replay/contribution'
import { contributeSettings } from '../settings/contribution'
import { contributeTimeline } from '../timeline/contribution'

/**
 * Every feature's contribution, in the order the palette lists their commands: a new panel is
 * one file in its feature (`contribution.tsx`) and one line here (docs/newcomers.md#a-new-panel).
 */
const FEATURES: ReadonlyArray<() => () => void> = [
  contributePalette,
  contributeApproval,
  contributeTimeline,
  contributeReplay,
  contributeSettings,
  contributeMcp,
  contributeModels,
  contributeProject,
]

/** Contributes every feature (once, before the app renders); returns the function that takes them back. */
export function contributeFeatures(): () => void {
  const takeBack = FEATURES.map((feature) => feature())
  return () => takeBack.reverse().forEach((undo) => undo())
}
