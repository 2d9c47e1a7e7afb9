// Shared by the MLS tests: the broker policy, a fresh account's device, and
// draining a conversation's events.
import { connect } from '../../src/client/connection.js';
import { Identity } from '../../src/crypto/identity.js';
import { Device, MemoryStore } from '../../src/mls/index.js';

/** @import { Conversation } from '../../src/mls/index.js' */

export const MLS_POLICY = `auth = "required"\nacl_preset = "chat-inbox"\n`;

/**
 * A device of a fresh account, connected as itself.
 * @param {string} url
 * @param {{ after(fn: () => unknown): void }} t
 */
export async function account(url, t) {
  const identity = await Identity.generate({ extractable: false });
  const client = await connect(url, { identity });
  t.after(() => client.close());
  const device = await Device.open(client, identity, new MemoryStore());
  await device.publishKeyPackages(3);
  return device;
}

/**
 * Every event of `c` until none is new, acknowledged.
 * @param {Conversation} c
 */
export async function drain(c) {
  const events = await c.receive();
  await c.ack(events.length);
  return events;
}

