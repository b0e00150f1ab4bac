import type React from 'react'
import { useId, useRef, useState, type ReactNode } from 'react'
import { describeRule, ruleLabel } from '../../../shared/approval-rules'
import type { RulePattern } from '../../../shared/protocol'
import { ApprovalActions } from './ApprovalActions'
import type { ApprovalAnswer } from './types'
import { useApprovalKeys, useTakeFocus } from './useApprovalKeys'
import { BacktickText } from './BacktickText'
import { useResolveOnce } from './useResolveOnce'
import './approval.css'

interface ApprovalHeaderProps {
  titleId: string
  /** The badge's colour (`approval-badge--KIND`) and its words. */
  kind: string
  badge: string
  heading: ReactNode
  /** How the tool is named in the meta line: "via read_file", "as mcp__x__y". */
  preposition?: string
  tool: string
  /** Requests waiting behind this one; none shows no counter. */
  queued?: number
}

/** The badge, question and tool line every approval but a file change starts with. */
export function ApprovalHeader(props: ApprovalHeaderProps): React.JSX.Element {
  const { titleId, kind, queued = 0 } = props
  return (
    <header className="approval-header">
      <div className="approval-title">
        <span className={`approval-badge approval-badge--${kind}`}>{props.badge}</span>
        <h2 id={titleId} className="approval-heading">
          {props.heading}
        </h2>
      </div>
      <div className="approval-meta">
        <span>
          {props.preposition ?? 'via'} <code>{props.tool}</code>
        </span>
        {queued > 0 && <span data-testid="approval-queue">1 of {queued + 1}</span>}
      </div>
    </header>
  )
}

interface AcceptRejectApprovalProps extends Omit<ApprovalHeaderProps, 'titleId'> {
  /** `data-kind` of the panel, for specs that tell approvals apart. */
  dataKind?: string
  /** The rule "Always allow" saves; absent: the buttons are not offered. */
  rule?: RulePattern
  /** The accept button's words; "Approve (Y)" unless told. */
  acceptLabel?: string
  onResolve(answer: ApprovalAnswer): void
  /** What is asked about, between the header and the buttons. */
  children: ReactNode
}

/**
 * An approval answered by Approve (Y) or Reject (N) with an optional reason: a command, an MCP
 * call, a file change too large to show in full.
 */
export function AcceptRejectApproval(props: AcceptRejectApprovalProps): React.JSX.Element {
  const { dataKind, onResolve, children, rule, acceptLabel = 'Approve (Y)', ...header } = props
  const [rejecting, setRejecting] = useState(false)
  const [resolved, resolve] = useResolveOnce(onResolve)
  const titleId = useId()
  const panel = useRef<HTMLElement>(null)
  useTakeFocus(panel)

  useApprovalKeys(
    { y: () => resolve({ decision: 'accept' }), n: () => setRejecting(true) },
    !resolved && !rejecting,
  )

  return (
    <section
      ref={panel}
      tabIndex={-1}
      className="approval-panel"
      aria-labelledby={titleId}
      data-testid="approval-panel"
      data-kind={dataKind}
    >
      <ApprovalHeader titleId={titleId} {...header} />
      {children}
      {rule && (
        <p className="approval-rule" data-testid="approval-rule-preview">
          <span>
            Always allow <code>{ruleLabel(rule)}</code>:
          </span>{' '}
          <BacktickText text={describeRule(rule)} />
        </p>
      )}
      <ApprovalActions
        acceptLabel={acceptLabel}
        resolved={resolved}
        rejecting={rejecting}
        onRejectingChange={setRejecting}
        onAccept={() => resolve({ decision: 'accept' })}
        onReject={(reason) => resolve(reason ? { decision: 'reject', reason } : { decision: 'reject' })}
      >
        {rule && (
          <>
            <button
              type="button"
              className="approval-button"
              data-testid="always-session-button"
              disabled={resolved || rejecting}
              onClick={() => resolve({ decision: 'always', scope: 'session' })}
            >
              Always in this chat
            </button>
            <button
              type="button"
              className="approval-button"
              data-testid="always-project-button"
              disabled={resolved || rejecting}
              onClick={() => resolve({ decision: 'always', scope: 'project' })}
            >
              Always in this project
            </button>
          </>
        )}
      </ApprovalActions>
    </section>
  )
}
