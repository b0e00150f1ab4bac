import { z } from 'zod'

/**
 * MCP (Model Context Protocol) servers: the app's view of them and the commands of its
 * MCP view in settings (docs/mcp.md). Merged into `commandSchemas` (commands.ts).
 *
 * Settings persist in the store's settings table under the key `mcp` (McpSettings).
 */

export const MCP_SERVER_STATES = [
  /** The user turned the server off. */
  'disabled',
  /** From a project's `.mcp.json` the user has not approved (or that changed since). */
  'awaiting-approval',
  /** Configured, not running (no session uses it yet, or the session ended). */
  'stopped',
  'starting',
  'ready',
  /** An HTTP server answered 401: it needs `stepwise mcp login NAME` (or "Sign in" in the app). */
  'needs-sign-in',
  /** Could not start, or crashed more often than the restart budget allows: see `error`. */
  'failed',
] as const
export const mcpServerStateSchema = z.enum(MCP_SERVER_STATES)
export type McpServerState = z.infer<typeof mcpServerStateSchema>

/** Where a server's configuration came from. */
export const mcpSourceSchema = z.enum(['user', 'cli', 'project'])
export type McpSource = z.infer<typeof mcpSourceSchema>

export const mcpToolViewSchema = z.object({
  /** The server's own name for the tool. */
  name: z.string(),
  /** The name the model sees: `mcp__SERVER__TOOL`. */
  qualified: z.string(),
  /** The server's description, untrusted text, capped (docs/mcp.md#limits). */
  description: z.string(),
  /** The server's `readOnlyHint` annotation: a hint, never a permission. */
  readOnly: z.boolean(),
  enabled: z.boolean(),
  /** `auto-edit` (and `read-only`) run it without asking. */
  allowed: z.boolean(),
})
export type McpToolView = z.infer<typeof mcpToolViewSchema>

export const mcpServerViewSchema = z.object({
  name: z.string(),
  source: mcpSourceSchema,
  transport: z.enum(['stdio', 'http']),
  /** The command line or URL, for display. */
  target: z.string(),
  state: mcpServerStateSchema,
  /** Why it failed: the command that ran and the tail of its stderr, or the HTTP error. */
  error: z.string().optional(),
  enabled: z.boolean(),
  /** Runs inside the command sandbox (`"sandbox": true` in its config). */
  sandbox: z.boolean(),
  /** Every tool of this server is allowed for `auto-edit`. */
  allowed: z.boolean(),
  /** Empty until the server has been ready once. */
  tools: z.array(mcpToolViewSchema),
  /** An HTTP server with OAuth tokens stored (`mcp/signOut` forgets them). */
  signedIn: z.boolean().default(false),
})
export type McpServerView = z.infer<typeof mcpServerViewSchema>

export const mcpProjectStateSchema = z.enum(['none', 'pending', 'approved', 'changed', 'rejected'])
export type McpProjectState = z.infer<typeof mcpProjectStateSchema>

export const mcpListOutputSchema = z.object({
  servers: z.array(mcpServerViewSchema),
  /** The open project's `.mcp.json`; null when no project is open. */
  project: z
    .object({
      /** Absolute path of the `.mcp.json`. */
      path: z.string(),
      /** sha256 (hex) of the file as shown; `mcp/approveProject` must send it back. */
      hash: z.string(),
      state: mcpProjectStateSchema,
      /** The server names the file declares. */
      servers: z.array(z.string()),
      /**
       * What approving covers: `.mcp.json` and the project files its servers run, relative paths
       * (src/main/mcp/project-files.ts).
       */
      files: z.array(z.string()).default([]),
      /** When `changed`: what changed since the approval, one phrase per path (`tools/x.sh (changed)`). */
      changes: z.array(z.string()).default([]),
    })
    .nullable(),
})
export type McpListOutput = z.infer<typeof mcpListOutputSchema>

const serverName = z.string().min(1).max(200)

/**
 * A server's question to the user (elicitation, docs/mcp.md#elicitation), waiting for an answer:
 * a form (`requestedSchema`, a flat JSON Schema) or a URL to open. Asked in every approval policy.
 */
export const mcpElicitationSchema = z.object({
  id: z.string(),
  server: z.string(),
  mode: z.enum(['form', 'url']),
  /** The server's text: untrusted, shown as plain text. */
  message: z.string(),
  requestedSchema: z.record(z.string(), z.unknown()).optional(),
  url: z.string().optional(),
})
export type McpElicitationView = z.infer<typeof mcpElicitationSchema>

const elicitationsOutput = z.object({ pending: z.array(mcpElicitationSchema) })

export const mcpElicitationCommandSchemas = {
  /** The questions waiting for an answer (for a window opened after they were asked). */
  'mcp/elicitations': { input: z.object({}), output: elicitationsOutput },
  'mcp/answerElicitation': {
    input: z.object({
      id: z.string(),
      action: z.enum(['accept', 'decline', 'cancel']),
      /** For an accepted form: the fields answered (left out: the schema's default applies). */
      content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    }),
    output: elicitationsOutput,
  },
} as const

/**
 * A running server's prompt, offered in the message box as the slash command that runs it
 * (`/mcp__SERVER__PROMPT args`, sent as the turn's text: the core puts the prompt's messages there).
 */
export const mcpPromptViewSchema = z.object({
  server: z.string(),
  /** The command without its slash: `mcp__SERVER__PROMPT`. */
  command: z.string(),
  /** The server's own name for the prompt. */
  name: z.string(),
  /** The server's text: untrusted, whitespace collapsed, capped. */
  description: z.string().optional(),
  arguments: z.array(
    z.object({ name: z.string(), description: z.string().optional(), required: z.boolean() }),
  ),
})
export type McpPromptView = z.infer<typeof mcpPromptViewSchema>

/**
 * A running server's resource (or resource template), offered after `@` in the message box as
 * `@SERVER:URI`; a message naming one has it read (through the policy, as the server's
 * read_resource tool) and attached for the model.
 */
export const mcpResourceViewSchema = z.object({
  server: z.string(),
  /** The URI, or for a template its RFC 6570 pattern (`file:///{path}`) to fill in. */
  uri: z.string(),
  template: z.boolean(),
  /** The server's texts: untrusted, whitespace collapsed, capped. */
  name: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
})
export type McpResourceView = z.infer<typeof mcpResourceViewSchema>

export const mcpCatalogOutputSchema = z.object({
  prompts: z.array(mcpPromptViewSchema),
  resources: z.array(mcpResourceViewSchema),
})
export type McpCatalog = z.infer<typeof mcpCatalogOutputSchema>

export const mcpCommandSchemas = {
  'mcp/list': { input: z.object({}), output: mcpListOutputSchema },
  /** The open project's running servers' prompts and resources, for the message box (`/` and `@`). */
  'mcp/catalog': { input: z.object({}), output: mcpCatalogOutputSchema },
  'mcp/setEnabled': {
    input: z.object({ server: serverName, tool: z.string().min(1).optional(), enabled: z.boolean() }),
    output: mcpListOutputSchema,
  },
  /** What `auto-edit` may run without asking: a whole server, or one tool. */
  'mcp/setAllowed': {
    input: z.object({ server: serverName, tool: z.string().min(1).optional(), allowed: z.boolean() }),
    output: mcpListOutputSchema,
  },
  /** For the open project's `.mcp.json`: the hash guards against approving a file that changed since it was shown. */
  'mcp/approveProject': {
    input: z.object({ hash: z.string().regex(/^[0-9a-f]{64}$/), approve: z.boolean() }),
    output: mcpListOutputSchema,
  },
  'mcp/restart': { input: z.object({ server: serverName }), output: mcpListOutputSchema },
  /**
   * Signs in to an HTTP server (OAuth): the browser opens at the authorization URL, which comes
   * back here (to show as a link when no browser opened); the end of the sign-in arrives as a
   * `host.mcp-status` notice. No URL: signed in (or failed) without the browser.
   */
  'mcp/signIn': {
    input: z.object({ server: serverName }),
    output: mcpListOutputSchema.extend({ signInUrl: z.string().optional() }),
  },
  /** Forgets a server's sign-in (tokens and registration). */
  'mcp/signOut': { input: z.object({ server: serverName }), output: mcpListOutputSchema },
  /** The tail of the server's stderr log. */
  'mcp/log': { input: z.object({ server: serverName }), output: z.object({ text: z.string() }) },
  ...mcpElicitationCommandSchemas,
} as const

/** The questions waiting changed (one asked, answered, or called off). A host notice (never stored). */
export const mcpElicitationsNotice = z.object({
  type: z.literal('host.mcp-elicitations'),
  pending: z.array(mcpElicitationSchema),
})

/** A server's state or tool list changed: the app refreshes with `mcp/list`. A host notice (never stored). */
export const mcpStatusNotice = z.object({
  type: z.literal('host.mcp-status'),
  server: z.string(),
  state: mcpServerStateSchema,
})

/**
 * Non-text content of an MCP result, kept on `tool.finished.attachments` for the app
 * (a model without vision gets a description instead).
 */
export const toolAttachmentSchema = z.object({
  kind: z.literal('image'),
  mimeType: z.string(),
  /** Base64 of the bytes. */
  data: z.string(),
})
export type ToolAttachment = z.infer<typeof toolAttachmentSchema>

/** The `mcp` settings key (project roots → sha256 of their approved `.mcp.json`). */
export const mcpSettingsSchema = z.object({
  disabledServers: z.array(z.string()).default([]),
  /** Servers the user turned on although their entry says `"disabled": true`. */
  enabledServers: z.array(z.string()).default([]),
  /** `SERVER/TOOL` names. */
  disabledTools: z.array(z.string()).default([]),
  allowedServers: z.array(z.string()).default([]),
  allowedTools: z.array(z.string()).default([]),
  approvedProjects: z.record(z.string(), z.string()).default({}),
  /** Project root → the files the approval covered (relative path → digest), to name what changed. */
  approvedProjectFiles: z.record(z.string(), z.record(z.string(), z.string())).default({}),
  rejectedProjects: z.record(z.string(), z.string()).default({}),
})
export type McpSettings = z.infer<typeof mcpSettingsSchema>
