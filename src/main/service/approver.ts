import type { ApprovalAnswer, ApprovalRequest, Approver } from '../agent/approvals'

/**
 * The approver of an app session: a request waits until the user answers it in
 * the renderer (`approval/resolve`) or the turn stops. The request itself reaches
 * the renderer as the `approval.requested` event the agent records before asking.
 */
export class HostApprover implements Approver {
  private readonly pending = new Map<string, (answer: ApprovalAnswer) => void>()

  requestApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    return new Promise((resolve) => {
      const stop = (): void => {
        this.pending.delete(request.callId)
        resolve({ decision: 'reject', reason: 'The user stopped the turn before answering.' })
      }
      if (signal.aborted) return stop()
      signal.addEventListener('abort', stop, { once: true })
      this.pending.set(request.callId, (answer) => {
        signal.removeEventListener('abort', stop)
        this.pending.delete(request.callId)
        resolve(answer)
      })
    })
  }

  /** Answers a waiting request; false when none waits under that id (answered already, or stopped). */
  resolve(callId: string, answer: ApprovalAnswer): boolean {
    const answerRequest = this.pending.get(callId)
    if (!answerRequest) return false
    answerRequest(answer)
    return true
  }

  get waiting(): number {
    return this.pending.size
  }
}
