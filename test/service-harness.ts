/**
 * The app's core service in-process for end-to-end tests: started on a real store and the fake
 * model server, driven through its protocol commands as the app drives it.
 */
import { createCoreService } from '../src/main/service/service'
import { openStore } from '../src/main/store/store'
import type { ApprovalPolicy } from '../src/shared/protocol'
import type { Store } from '../src/main/store/types'

// The polling helper the service tests import from here lives with the other test helpers.
export { until } from '../src/main/store/testing/helpers'

export type CoreService = ReturnType<typeof createCoreService>

/** The web host on `store`, new chats on the fake server's `coder:1b`, edits approved unless `approvalPolicy` says otherwise. */
export function startService(at: {
  store: Store
  dataDir: string
  baseUrl: string
  approvalPolicy?: ApprovalPolicy
  /** What opening the data folder said (session/data-folder.ts), as a host passes it on. */
  notices?: string[]
}): CoreService {
  return createCoreService({
    store: at.store,
    dataDir: at.dataDir,
    host: 'web',
    notices: at.notices,
    defaults: {
      provider: 'ollama',
      model: 'coder:1b',
      baseUrl: at.baseUrl,
      approvalPolicy: at.approvalPolicy ?? 'auto-edit',
    },
  })
}

/** A command's output; a refusal throws with the core's reason. */
export async function answer<T = Record<string, unknown>>(
  service: CoreService,
  command: string,
  input: unknown,
): Promise<T> {
  const reply = await service.answer(command, input)
  if (!reply.ok) throw new Error(reply.error)
  return reply.output as T
}

/** Sends a message and waits until the turn it starts has ended. */
export async function runTurn(service: CoreService, sessionId: string, text: string): Promise<void> {
  await answer(service, 'turn/start', { sessionId, text })
  const end = Date.now() + 10_000
  while (service.sessions.isRunning(sessionId)) {
    if (Date.now() > end) throw new Error('the turn did not end')
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** A service on the store in a data folder that a test closes and opens again, as the app restarts. */
export interface RestartableService {
  readonly store: Store
  readonly service: CoreService
  /** Opens the store and starts the service on it (the fake server must be up). */
  open(): void
  close(): Promise<void>
  call<T = Record<string, unknown>>(command: string, input: unknown): Promise<T>
  runTurn(sessionId: string, text: string): Promise<void>
}

/** `where` is asked at each open, so a test may make its folders and fake server per test. */
export function restartableService(where: () => { dataDir: string; baseUrl: string }): RestartableService {
  let store: Store | undefined
  let service: CoreService | undefined
  const started = (): { store: Store; service: CoreService } => {
    if (!store || !service) throw new Error('the service is not open')
    return { store, service }
  }
  return {
    get store() {
      return started().store
    },
    get service() {
      return started().service
    },
    open() {
      const { dataDir, baseUrl } = where()
      store = openStore(dataDir)
      service = startService({ store, dataDir, baseUrl })
    },
    async close() {
      const open = started()
      await open.service.close()
      open.store.close()
    },
    call: (command, input) => answer(started().service, command, input),
    runTurn: (sessionId, text) => runTurn(started().service, sessionId, text),
  }
}
