/**
 * Where a webhook may go: an http(s) URL whose host resolves only to public addresses. Loopback,
 * private, link-local (cloud metadata at 169.254.169.254), unspecified, multicast and other
 * special ranges are refused, after DNS resolution, unless the operator allows them
 * (SAWT_WEBHOOK_ALLOW: host names, addresses or CIDRs, comma-separated). The delivery connects
 * to the address checked here, so a second DNS answer cannot send it elsewhere.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { errors } from '@sawt/core';

/** Ranges no webhook may reach unless allowed (IANA special-purpose registries). */
const SPECIAL = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24],
  ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) SPECIAL.addSubnet(net, bits, 'ipv4');
// IPv4-mapped addresses (::ffff:0:0/96) are judged as the IPv4 address they carry (plain()): listed
// here, BlockList would also match every IPv4 address against them.
for (const [net, bits] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) SPECIAL.addSubnet(net, bits, 'ipv6');

export interface WebhookAllowList {
  hosts: Set<string>;
  nets: BlockList;
}

/** SAWT_WEBHOOK_ALLOW parsed: host names, addresses and CIDRs. */
export function parseAllowList(value: string | undefined): WebhookAllowList {
  const hosts = new Set<string>();
  const nets = new BlockList();
  for (const item of (value ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    const [addr, bits] = item.split('/');
    const family = isIP(addr!);
    if (family && bits !== undefined) nets.addSubnet(addr!, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
    else if (family) nets.addAddress(addr!, family === 6 ? 'ipv6' : 'ipv4');
    else hosts.add(item);
  }
  return { hosts, nets };
}

/** An IPv4-mapped IPv6 address as its IPv4 form (so ::ffff:127.0.0.1 is judged as 127.0.0.1). */
function plain(address: string): { address: string; family: 4 | 6 } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 4 };
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}

export interface ResolvedTarget {
  url: URL;
  /** The checked address the delivery connects to. */
  address: string;
  family: 4 | 6;
}

/** Checks `raw` as a webhook target (400 / 40001 naming why not) and resolves the address to send to. */
export async function resolveWebhookTarget(raw: string, allow: WebhookAllowList): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw errors.validation('callback_url must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.validation('callback_url must be an absolute http or https URL');
  if (url.username || url.password) throw errors.validation('callback_url must not carry a user name or password');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const hostAllowed = allow.hosts.has(host);
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw errors.validation(`callback_url: the host '${host}' does not resolve`);
    }
  }
  if (!addresses.length) throw errors.validation(`callback_url: the host '${host}' does not resolve`);
  for (const a of addresses) {
    const p = plain(a.address);
    const type = p.family === 6 ? 'ipv6' : 'ipv4';
    if (!hostAllowed && SPECIAL.check(p.address, type) && !allow.nets.check(p.address, type)) {
      throw errors.validation(`callback_url: '${host}' resolves to ${a.address}, a loopback, private, link-local or otherwise non-public address; webhooks go to public addresses only (an operator may allow it with SAWT_WEBHOOK_ALLOW)`);
    }
  }
  const first = plain(addresses[0]!.address);
  return { url, address: first.address, family: first.family };
}
