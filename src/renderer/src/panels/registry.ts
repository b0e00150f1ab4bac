import { createElement, type ComponentType, type ReactElement, type ReactNode } from 'react'
import type { SessionView } from '../../../shared/reducer'
import type { GlobalShortcut } from '../palette/keys'
import type { AppState, ApprovalRequest } from '../state/store'

/**
 * The app's contributions, as in VS Code: a feature says what it adds — a panel (beside the
 * timeline, or a dialog), its commands (the palette and the message box's `/`) and its keys — and
 * the frame (`SidePanel`, `DialogHost`, the palette, the global shortcuts) shows what is held here.
 * Features contribute once at start (panels/features.ts); a test may contribute and take back.
 */

/** One command of the app, shared by the command palette (Ctrl+K) and the message box (`/name args`). */
export interface Command {
  id: string
  /** What the palette shows and filters on. */
  title: string
  keywords?: string
  /** One line under the title. */
  hint?: string
  shortcut?: string
  /** Its name after `/` in the message box; absent: palette only. */
  slash?: string
  /** What may follow the slash name, for the completion list: `N` (required), `[target]` (optional). */
  args?: string
  /** Why it cannot run now, or null when it can. */
  unavailable?(s: AppState): string | null
  /** `arg` is what followed the slash name ('' from the palette). */
  run(arg: string): void | Promise<unknown>
}

/** What the side panel decides on: the displayed session (live, or as of the replayed step). */
export interface SideContext {
  view: SessionView
  /** The seq the replay shows up to; undefined when live (null: replaying, nothing shown yet). */
  replayingAt: number | null | undefined
  approvals: Record<string, ApprovalRequest>
  sessionId: string | null
  selectedSeq: number | null
}

/** A panel right of the timeline. The first (lowest `order`) that has something to show wins. */
export interface SidePanelDef<P extends object> {
  id: string
  order: number
  /** The `<aside>`'s accessible name. */
  label: string
  /** Added to `side-panel` on the `<aside>`. */
  className?: string
  /** Shown inside Suspense with this fallback (a lazily loaded component). */
  fallback?: ReactNode
  /** The props to show it with, or null when it has nothing to show now. */
  show(ctx: SideContext): P | null
  component: ComponentType<P>
}

/** A side panel as held: its props and component closed over, so panels of any props share a list. */
export interface SidePanelEntry {
  id: string
  order: number
  label: string
  className?: string
  fallback?: ReactNode
  element(ctx: SideContext): ReactElement | null
}

export function sidePanel<P extends object>(def: SidePanelDef<P>): SidePanelEntry {
  const { show, component, ...rest } = def
  return {
    ...rest,
    element(ctx) {
      const props = show(ctx)
      return props === null ? null : createElement(component, props)
    },
  }
}

/** A dialog: shown while the panel state has its id open (`openPanel(id)`), closed by `onClose`. */
export interface DialogPanel {
  id: string
  component: ComponentType<{ onClose(): void }>
  /** Not while replaying (it acts on the live chat); it shows again once replay ends. */
  liveOnly?: boolean
}

/** A global key: `run` gets the event and decides whether it acts (a field has focus, a dialog is open…). */
export interface KeyBinding {
  shortcut: GlobalShortcut
  run(event: KeyboardEvent): void
}

export interface Contribution {
  /** The feature's name, for messages. */
  feature: string
  side?: readonly SidePanelEntry[]
  dialogs?: readonly DialogPanel[]
  commands?: readonly Command[]
  keys?: readonly KeyBinding[]
}

let contributions: readonly Contribution[] = []
let side: readonly SidePanelEntry[] = []
let dialogs: readonly DialogPanel[] = []
let commands: readonly Command[] = []
let keys: readonly KeyBinding[] = []

function rebuild(): void {
  side = contributions.flatMap((c) => c.side ?? []).sort((a, b) => a.order - b.order)
  dialogs = contributions.flatMap((c) => c.dialogs ?? [])
  commands = contributions.flatMap((c) => c.commands ?? [])
  keys = contributions.flatMap((c) => c.keys ?? [])
}

function clashes(next: Contribution): string | null {
  const taken = (kind: string, ids: readonly string[], have: readonly string[]): string | null => {
    const twice = ids.find((id) => have.includes(id))
    return twice === undefined ? null : `${kind} "${twice}"`
  }
  return (
    taken(
      'side panel',
      next.side?.map((p) => p.id) ?? [],
      side.map((p) => p.id),
    ) ??
    taken(
      'dialog',
      next.dialogs?.map((d) => d.id) ?? [],
      dialogs.map((d) => d.id),
    ) ??
    taken(
      'command',
      next.commands?.map((c) => c.id) ?? [],
      commands.map((c) => c.id),
    ) ??
    taken(
      'slash command',
      next.commands?.flatMap((c) => (c.slash ? [c.slash] : [])) ?? [],
      commands.flatMap((c) => (c.slash ? [c.slash] : [])),
    )
  )
}

/**
 * Adds a feature's panels, commands and keys. An id or slash name already held is refused: two
 * features would otherwise answer the same `/name`. Returns the function that takes it back.
 */
export function contribute(contribution: Contribution): () => void {
  const clash = clashes(contribution)
  if (clash)
    throw new Error(
      `${contribution.feature} contributes ${clash}, which another feature already has: give it another id.`,
    )
  contributions = [...contributions, contribution]
  rebuild()
  return () => {
    contributions = contributions.filter((c) => c !== contribution)
    rebuild()
  }
}

/** The side panels, lowest order first. */
export function sidePanels(): readonly SidePanelEntry[] {
  return side
}

export function dialogPanels(): readonly DialogPanel[] {
  return dialogs
}

/** Every feature's commands, in the order the features contributed them. */
export function contributedCommands(): readonly Command[] {
  return commands
}

export function keyBindings(): readonly KeyBinding[] {
  return keys
}
