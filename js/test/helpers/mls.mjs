// Shared by the MLS tests: the broker policy, a fresh account's device, and
// draining a conversation's events.
import { connect } from '../../src/client/connection.js';
import { Identity } from '../../src/crypto/identity.js';
import { Ack, Cleanup } from '../../src/protocol/frame.js';
import { BatchBuilder } from '../../src/protocol/record.js';
import { DEVICES_KEY, Device, MemoryStore, directoryTopic } from '../../src/mls/index.js';

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


// What a broker with admin rights can do to `dir.<account>`.

/**
 * Writes `list` under `account`'s device-list key.
 * @param {import('../../src/client/connection.js').Client} c
 * @param {Parameters<typeof directoryTopic>[0]} account
 * @param {Uint8Array} list
 */
export async function writeList(c, account, list) {
  const b = new BatchBuilder(DEVICES_KEY);
  b.push(list);
  await c.produce(directoryTopic(account), 0, Ack.Durable, b.finish());
}

/**
 * Empties `account`'s directory topic (deleted and made again).
 * @param {import('../../src/client/connection.js').Client} c
 * @param {Parameters<typeof directoryTopic>[0]} account
 */
export async function refill(c, account) {
  await c.deleteTopic(directoryTopic(account));
  await c.createTopic(directoryTopic(account), { partitions: 1, cleanup: Cleanup.Compact });
}

/**
 * Empties `account`'s directory topic and puts `list` back alone: a rollback.
 * @param {import('../../src/client/connection.js').Client} c
 * @param {Parameters<typeof directoryTopic>[0]} account
 * @param {Uint8Array} list
 */
export async function rollBack(c, account, list) {
  await refill(c, account);
  await writeList(c, account, list);
}
