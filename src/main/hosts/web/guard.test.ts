import { describe, expect, it } from 'vitest'
import {
  hostWithPort,
  isLoopbackHost,
  isWildcardHost,
  reachableHosts,
  readCookie,
  splitTarget,
  tokensEqual,
} from './guard'
import { parseClientRequest } from '../../../shared/protocol/wire'

describe('guard helpers', () => {
  it('tells loopback, wildcard and other addresses apart', () => {
    for (const host of [
      '127.0.0.1',
      '127.1.2.3',
      'localhost',
      'LOCALHOST',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true)
    }
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '128.0.0.1',
      'localhost.evil.com',
      '127.0.0.1.evil.com',
    ]) {
      expect(isLoopbackHost(host), host).toBe(false)
    }
    expect(['0.0.0.0', '::', '[::]'].every(isWildcardHost)).toBe(true)
    expect(isWildcardHost('127.0.0.1')).toBe(false)
  })

  it('lists the host:port names a browser may use', () => {
    expect(hostWithPort('::1', 80)).toBe('[::1]:80')
    expect(reachableHosts('127.0.0.1', 4000)).toEqual(['127.0.0.1:4000', 'localhost:4000', '[::1]:4000'])
    expect(reachableHosts('192.168.1.20', 4000)).toEqual(['192.168.1.20:4000'])
    expect(reachableHosts('0.0.0.0', 4000)).toContain('localhost:4000')
  })

  it('compares tokens exactly', () => {
    expect(tokensEqual('abc', 'abc')).toBe(true)
    expect(tokensEqual('abc', 'abd')).toBe(false)
    expect(tokensEqual('ab', 'abc')).toBe(false)
    expect(tokensEqual('', 'abc')).toBe(false)
  })

  it('reads one cookie and splits a request target without normalising it', () => {
    expect(readCookie('a=1; stepwise_token_1=x%20y; b=2', 'stepwise_token_1')).toBe('x y')
    expect(readCookie('xstepwise_token_1=x', 'stepwise_token_1')).toBeUndefined()
    expect(readCookie('stepwise_token_1=%zz', 'stepwise_token_1')).toBeUndefined()
    expect(readCookie(undefined, 'a')).toBeUndefined()
    const target = splitTarget('/../a?token=t&x=1')
    expect(target?.path).toBe('/../a')
    expect(target?.query.get('token')).toBe('t')
    expect(splitTarget('http://evil/')).toBeNull()
    expect(splitTarget(undefined)).toBeNull()
  })
})

describe('parseClientRequest', () => {
  it('accepts { id, command, input } and says what is wrong otherwise', () => {
    expect(parseClientRequest('{"id":1,"command":"session/list","input":{}}')).toEqual({
      ok: true,
      request: { id: 1, command: 'session/list', input: {} },
    })
    expect(parseClientRequest('{"id":2,"command":"x"}')).toEqual({
      ok: true,
      request: { id: 2, command: 'x', input: undefined },
    })
    expect(parseClientRequest('nope')).toMatchObject({ ok: false, id: null })
    expect(parseClientRequest('null')).toMatchObject({ ok: false, id: null })
    expect(parseClientRequest('{"id":-1,"command":"x"}')).toMatchObject({ ok: false, id: null })
    expect(parseClientRequest('{"id":1.5,"command":"x"}')).toMatchObject({ ok: false, id: null })
    expect(parseClientRequest('{"id":5,"command":""}')).toMatchObject({ ok: false, id: 5 })
    expect(parseClientRequest('{"id":5,"command":3}')).toMatchObject({ ok: false, id: 5 })
  })
})
