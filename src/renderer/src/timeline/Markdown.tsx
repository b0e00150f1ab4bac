import { memo } from 'react'
import type React from 'react'
import ReactMarkdown, { defaultUrlTransform, type Components } from 'react-markdown'
import rehypeHighlight from 'rehype-highlight'
import remarkGfm from 'remark-gfm'
import './markdown.css'

/*
 * Markdown from the user and the model. Nothing in it can act: URLs go through
 * react-markdown's default transform (no javascript:, no data:), links open a new
 * window without an opener (an unsafe one is plain text), and images are shown as
 * links instead of being loaded, so a message cannot make the app fetch a URL (a
 * classic way to leak data).
 */

const remarkPlugins = [remarkGfm]
const rehypePlugins = [rehypeHighlight]

const components: Components = {
  // An unsafe URL comes out of the transform as '': show the text, not a link to the app itself.
  a: ({ node: _node, children, href, title }) =>
    href ? (
      <a href={href} title={title} target="_blank" rel="noreferrer">
        {children}
      </a>
    ) : (
      <span title={title}>{children}</span>
    ),
  img: ({ node: _node, src, alt }) =>
    typeof src === 'string' && src !== '' ? (
      <a href={src} target="_blank" rel="noreferrer" className="md-image-link">
        [image{alt ? `: ${alt}` : ''}]
      </a>
    ) : (
      <span>[image{alt ? `: ${alt}` : ''}]</span>
    ),
}

export interface MarkdownProps {
  text: string
  className?: string
  /** Colour code blocks (off in timeline rows: they re-render on every streamed delta). */
  highlight?: boolean
}

function MarkdownImpl({ text, className, highlight = true }: MarkdownProps): React.JSX.Element {
  return (
    <div className={className ? `md ${className}` : 'md'}>
      <ReactMarkdown
        remarkPlugins={remarkPlugins}
        rehypePlugins={highlight ? rehypePlugins : undefined}
        urlTransform={defaultUrlTransform}
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  )
}

/** Rendered markdown; re-parses only when the text changes. */
export const Markdown = memo(MarkdownImpl)
