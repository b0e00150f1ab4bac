import { renderToStaticMarkup } from 'react-dom/server'
import { afterEach, describe, expect, it } from 'vitest'
import { emptySessionView } from '../../../shared/reducer'
import { sidePanelFor } from '../layout/SidePanel'
import { findSlash, paletteCommands } from '../palette/commands'
import type { SideContext } from './registry'
import { contributeStepCount } from './examplePanel'
import { contributeFeatures } from './features'
import { contribute, dialogPanels, keyBindings, sidePanels } from './registry'

/*
 * The panel registry, and the worked example of docs/newcomers.md ("A new panel"): contributed, it
 * shows beside the timeline (test/newcomers/new-panel-guide.test.ts keeps the guide's copy of it true).
 */

let takeBack: Array<() => void> = []
afterEach(() => {
  takeBack.reverse().forEach((undo) => undo())
  takeBack = []
})

const ctx = (sessionId: string | null): SideContext => ({
  view: emptySessionView,
  replayingAt: undefined,
  approvals: {},
  sessionId,
  selectedSeq: null,
})

const renderSide = (at: SideContext): string => {
  const aside = sidePanelFor(at)
  return aside ? renderToStaticMarkup(aside) : ''
}

describe('the guide’s example panel', () => {
  it('is held by the registry once contributed, with its command, and gone once taken back', () => {
    const undo = contributeStepCount()
    expect(sidePanels().map((p) => p.id)).toContain('step-count')
    expect(findSlash('steps')?.title).toBe('Count steps')
    expect(paletteCommands().map((c) => c.id)).toContain('step-count')
    undo()
    expect(sidePanels().map((p) => p.id)).not.toContain('step-count')
    expect(findSlash('steps')).toBeUndefined()
  })

  it('shows beside the timeline while a chat is open, and after the app’s own panels', () => {
    takeBack.push(contributeFeatures(), contributeStepCount())
    expect(renderSide(ctx(null))).toBe('') // no chat open
    expect(renderSide(ctx('s1'))).toBe(
      '<aside class="side-panel" aria-label="Step count"><p data-testid="step-count">This chat has 0 steps.</p></aside>',
    )
    expect(sidePanels().map((p) => p.id)).toEqual(['approval', 'step-details', 'replay-files', 'step-count'])
  })
})

describe('the registry', () => {
  it('refuses a second feature with an id or slash name already held, saying which', () => {
    takeBack.push(contributeFeatures())
    expect(() =>
      contribute({
        feature: 'notes',
        commands: [{ id: 'notes', slash: 'help', title: 'Notes', run: () => {} }],
      }),
    ).toThrow('notes contributes slash command "help", which another feature already has')
    expect(() =>
      contribute({ feature: 'again', dialogs: [{ id: 'settings', component: () => null }] }),
    ).toThrow(/dialog "settings"/)
    expect(findSlash('help')?.title).toBe('Help') // the refused one changed nothing
  })

  it('holds the app’s dialogs and keys once the features contribute', () => {
    takeBack.push(contributeFeatures())
    expect(dialogPanels().map((d) => d.id)).toEqual([
      'palette',
      'help',
      'status',
      'settings',
      'mcp',
      'model-picker',
      'open-folder',
    ])
    expect(keyBindings().map((k) => k.shortcut)).toEqual(['palette', 'undo'])
  })
})
