import { describe, expect, it } from 'vitest';
import { WebhookUrlGuard } from './webhook-url-guard';

const strict = new WebhookUrlGuard({ allowPrivate: false, allowedHosts: [] });

describe('WebhookUrlGuard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
  ])('refuses %s (%s)', (address, range) => {
    expect(strict.refusal(address)).toBe(`${address} is a ${range} address`);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])('accepts the public address %s', (address) => {
    expect(strict.refusal(address)).toBeUndefined();
  });

  it('accepts what the operator allows: any address, or named networks and hosts', async () => {
    expect(new WebhookUrlGuard({ allowPrivate: true, allowedHosts: [] }).refusal('127.0.0.1')).toBeUndefined();
    const listed = new WebhookUrlGuard({ allowPrivate: false, allowedHosts: ['10.20.0.0/16', 'fd12::7', 'hooks.internal'] });
    expect(listed.refusal('10.20.3.4')).toBeUndefined();
    expect(listed.refusal('fd12::7')).toBeUndefined();
    expect(listed.refusal('10.21.0.1')).toBe('10.21.0.1 is a private address');
    expect(await listed.checkUrl('http://hooks.internal:8080/x')).toBeUndefined();
    expect(await listed.checkUrl('http://10.20.9.9/x')).toBeUndefined();
  });

  it('checks literals and names in URLs, brackets and hex forms included', async () => {
    expect(await strict.checkUrl('http://[::1]:8080/x')).toBe('::1 is a loopback address');
    expect(await strict.checkUrl('http://0x7f000001/x')).toBe('127.0.0.1 is a loopback address');
    expect(await strict.checkUrl('http://localhost:1/x')).toMatch(/^localhost resolves to .* is a loopback address$/);
    expect(strict.literalRefusal('http://192.168.1.1/x')).toBe('192.168.1.1 is a private address');
    expect(strict.literalRefusal('http://localhost/x')).toBeUndefined(); // a name: the connection's lookup decides
  });

  it('fails the connection lookup of a name that resolves to a refused address', async () => {
    const error = await new Promise<Error | null>((resolve) => strict.lookup('localhost', { all: false }, (e) => resolve(e)));
    expect(error?.message).toMatch(/^localhost resolves to .* loopback address$/);
    const trusted = new WebhookUrlGuard({ allowPrivate: false, allowedHosts: ['localhost'] });
    const address = await new Promise<string>((resolve, reject) => trusted.lookup('localhost', { family: 4 }, (e, a) => (e ? reject(e) : resolve(a as string))));
    expect(address).toBe('127.0.0.1');
  });
});
