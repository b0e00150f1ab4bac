import { BUILTIN_PROVIDERS } from './builtin'
import { isProviderIdShape, type ProviderDescriptor } from './descriptor'

/**
 * The one registry of providers' descriptors. The built-in ones are here from the start; a
 * provider added at run time (src/main/providers/registry.ts `registerProvider`) is added
 * beside them. Every branch on a provider reads its descriptor from here.
 */
const registry = new Map<string, ProviderDescriptor>(BUILTIN_PROVIDERS.map((d) => [d.id, d]))

/** Adds a provider; an id already taken or of the wrong shape is refused with the reason. */
export function registerProviderDescriptor(descriptor: ProviderDescriptor): void {
  if (!isProviderIdShape(descriptor.id))
    throw new Error(
      `Provider id "${descriptor.id}" is not usable: use lower-case letters, digits and "-" (at most 32), starting with a letter.`,
    )
  const taken = registry.get(descriptor.id)
  if (taken && taken !== descriptor)
    throw new Error(`Provider id "${descriptor.id}" is taken by ${taken.label}: choose another id.`)
  registry.set(descriptor.id, descriptor)
}

/** Removes a provider added at run time (tests); the built-in ones stay. */
export function unregisterProviderDescriptor(id: string): void {
  if (BUILTIN_PROVIDERS.some((d) => d.id === id)) throw new Error(`Provider ${id} is built in and stays.`)
  registry.delete(id)
}

export function isProviderId(id: string): boolean {
  return registry.has(id)
}

/** Every provider's id, in the order they were registered (built-in ones first, local first). */
export function providerIds(): string[] {
  return [...registry.keys()]
}

export function providerDescriptors(): ProviderDescriptor[] {
  return [...registry.values()]
}

/** The descriptor of a known provider; an unknown id is an error naming the known ones. */
export function providerDescriptor(id: string): ProviderDescriptor {
  const found = registry.get(id)
  if (!found) throw new Error(unknownProviderMessage(id))
  return found
}

export function unknownProviderMessage(id: string): string {
  return `Unknown provider "${id}": use one of ${providerIds().join(', ')}.`
}

/** The name the app shows for a provider; an id no longer registered (old history) shows as itself. */
export function providerLabel(id: string): string {
  return registry.get(id)?.label ?? id
}

export type { ProviderDescriptor, WireProtocol } from './descriptor'
export { isProviderIdShape } from './descriptor'
export { BUILTIN_PROVIDERS } from './builtin'
export { OLLAMA, OPENAI, OPENAI_CHAT } from './builtin'
