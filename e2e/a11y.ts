/**
 * Runs in the page (as a string: the e2e TypeScript project has no DOM types): the visible controls
 * that have no accessible name — from aria-label, aria-labelledby, a <label>, a button's text or a
 * title. An approximation of the accessible-name algorithm, strict enough to catch a bare icon button.
 * What aria-hidden takes out of the accessibility tree (Monaco's IME helper fields) is not asked about.
 */
export const UNNAMED_CONTROLS = `(() => {
  const nameOf = (el) => {
    const label = el.getAttribute('aria-label') || ''
    const by = (el.getAttribute('aria-labelledby') || '')
      .split(/\\s+/)
      .map((id) => (id && document.getElementById(id) ? document.getElementById(id).textContent : ''))
      .join('')
    const forLabel = el.id && document.querySelector('label[for="' + el.id + '"]')
      ? document.querySelector('label[for="' + el.id + '"]').textContent
      : ''
    const wrapped = el.closest('label') ? el.closest('label').textContent : ''
    const text = el.tagName === 'BUTTON' ? el.textContent || '' : ''
    return (label + by + forLabel + wrapped + text + (el.getAttribute('title') || '')).trim()
  }
  return [...document.querySelectorAll('button, input, select, textarea, [role="button"], a[href]')]
    .filter((el) => el.offsetParent !== null && !el.closest('[aria-hidden="true"]') && !nameOf(el))
    .map((el) => el.outerHTML.slice(0, 120))
})()`
