/*
 * The portable session format (docs/session-format.md): `exportBundle` writes one
 * session with everything it needs to one file; `importBundle` reads it into
 * another store, all or nothing.
 */
export { exportBundle, type BundleCounts, type ExportBundleResult } from './bundle-export'
export { importBundle, type ImportBundleOptions, type ImportBundleResult } from './bundle-import'
export { BundleError, FORMAT_MAJOR, FORMAT_MINOR, type BundleErrorCode } from './bundle-format'

/** The file name an export gets when none is given. */
export const bundleFileName = (sessionId: string): string => `${sessionId}.stepwise`
