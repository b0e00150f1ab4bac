import type React from 'react'
import { useId } from 'react'
import { ApprovalHeader } from './ApprovalFrame'
import type { ApprovalAnswer, ApprovalCard } from './types'
import { useApprovalKeys } from './useApprovalKeys'
import { useResolveOnce } from './useResolveOnce'

const CHOICES: ReadonlyArray<{ answer: ApprovalAnswer; label: string; testId: string; primary?: boolean }> = [
  { answer: { decision: 'accept' }, label: 'Apply anyway (Y)', testId: 'conflict-apply', primary: true },
  { answer: { decision: 'reject' }, label: 'Skip (N)', testId: 'conflict-skip' },
  { answer: { decision: 'regenerate' }, label: 'Regenerate (R)', testId: 'conflict-regenerate' },
]

interface ConflictApprovalProps {
  request: ApprovalCard<'conflict'>
  onResolve(answer: ApprovalAnswer): void
}

/**
 * The file of an approved change was changed on disk while it waited (the user edited it):
 * apply the change anyway, skip it and keep the file as it is, or let the model read the file
 * again and redo its change. Keys: Y apply, N skip, R regenerate.
 */
export function ConflictApproval({ request, onResolve }: ConflictApprovalProps): React.JSX.Element {
  const [resolved, resolve] = useResolveOnce(onResolve)
  const titleId = useId()
  useApprovalKeys(
    {
      y: () => resolve(CHOICES[0].answer),
      n: () => resolve(CHOICES[1].answer),
      r: () => resolve(CHOICES[2].answer),
    },
    !resolved,
  )
  return (
    <section className="approval-panel" aria-labelledby={titleId} data-testid="approval-panel">
      <ApprovalHeader
        titleId={titleId}
        kind="conflict"
        badge="changed on disk"
        heading={`${request.subject.path} changed while the change waited`}
        tool={request.tool}
      />
      <div className="approval-command-body">
        <p>
          The file is no longer what the model read. Apply its change over the file as it is now, keep your
          version and skip the change, or have the model read the file again and redo it.
        </p>
      </div>
      <footer className="approval-actions approval-conflict-actions">
        {CHOICES.map(({ answer, label, testId, primary }) => (
          <button
            key={testId}
            type="button"
            className={primary ? 'ui-button primary' : 'ui-button'}
            data-testid={testId}
            disabled={resolved}
            onClick={() => resolve(answer)}
          >
            {label}
          </button>
        ))}
      </footer>
    </section>
  )
}
