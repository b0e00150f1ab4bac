import { randomUUID } from 'node:crypto'

export interface QueuedMessage {
  id: string
  text: string
}

/**
 * Messages the user sent to a session while its turn ran: held here, editable and cancellable
 * until the agent takes them at its next step boundary (AgentOptions.inbox). In memory only —
 * a message is stored as an event when it is delivered, so nothing the model saw is lost with it.
 */
export class MessageQueue {
  private items: QueuedMessage[] = []

  /** `changed` hears every change, with the messages still waiting. */
  constructor(private readonly changed: (items: readonly QueuedMessage[]) => void) {}

  get size(): number {
    return this.items.length
  }

  add(text: string): string {
    const id = randomUUID()
    this.items = [...this.items, { id, text }]
    this.changed(this.items)
    return id
  }

  /** False when the message was already delivered or taken back. */
  update(id: string, text: string): boolean {
    if (!this.items.some((m) => m.id === id)) return false
    this.items = this.items.map((m) => (m.id === id ? { id, text } : m))
    this.changed(this.items)
    return true
  }

  remove(id: string): boolean {
    const before = this.items.length
    this.items = this.items.filter((m) => m.id !== id)
    if (this.items.length === before) return false
    this.changed(this.items)
    return true
  }

  /** Every waiting message, oldest first, leaving the queue empty. */
  take(): string[] {
    if (this.items.length === 0) return []
    const texts = this.items.map((m) => m.text)
    this.items = []
    this.changed(this.items)
    return texts
  }
}
