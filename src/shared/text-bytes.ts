/** File bytes read as text: binary sniffing and UTF-8 decoding, the same for the tools and the code index. */

/** Git's rule: a NUL byte in the first 8 KB means binary. */
export function isBinary(data: Uint8Array): boolean {
  return data.subarray(0, 8192).includes(0)
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true })

/** UTF-8 text; invalid bytes become U+FFFD and `invalidUtf8` says so. A BOM is kept, so a write keeps it. */
export function decodeText(data: Uint8Array): { text: string; invalidUtf8: boolean } {
  try {
    return { text: strictUtf8.decode(data), invalidUtf8: false }
  } catch {
    return { text: lenientUtf8.decode(data), invalidUtf8: true }
  }
}
