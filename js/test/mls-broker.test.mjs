// MLS conversations between JavaScript devices through a real broker
// (auth required, the chat-inbox preset): create, invite, join, messages
// both ways, add a third member, self-update, remove, leave — every member
// on one epoch authenticator after every Commit; a removed member keeps
// fetching and opens nothing sent after its removal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Conversation, Device, MemoryStore } from '../src/mls/index.js';
import { startBroker } from './helpers/broker.mjs';
import { MLS_POLICY, account, drain } from './helpers/mls.mjs';

/** @param {Uint8Array} a */
const hex = (a) => Buffer.from(a).toString('hex');

/**
 * Asserts every conversation is at one epoch with one authenticator.
 * @param {Conversation[]} cs
 */
async function assertAgree(cs) {
  for (const c of cs) await c.catchUp();
  const [first, ...rest] = cs;
  for (const c of rest) {
    assert.equal(c.epoch, first.epoch, 'one epoch');
    assert.equal(hex(c.epochAuthenticator), hex(first.epochAuthenticator), 'one epoch authenticator');
  }
}

test('three JavaScript devices: invite, join, talk, add, update, remove, leave through the broker', async (t) => {
  const broker = await startBroker({ config: MLS_POLICY });
  t.after(() => broker.stop());
  const [alice, bob, carol] = [await account(broker.url, t), await account(broker.url, t), await account(broker.url, t)];

  const a = await Conversation.create(alice);
  assert.match(a.topic, /^mls\.[0-9a-f]{64}$/);
  const added = await a.invite(bob.account.fingerprint());
  assert.equal(added.outcome, 'committed');
  assert.deepEqual(await Conversation.acceptWelcomes(bob), [a.topic]);
  assert.deepEqual(await Conversation.acceptWelcomes(bob), [], 'a Welcome is taken once');
  const b = await Conversation.open(bob, a.topic);
  await assertAgree([a, b]);

  await a.send('hello bob');
  await b.send('hello alice');
  const atB = (await drain(b)).filter((e) => e.type === 'message');
  assert.deepEqual(atB.map((e) => e.type === 'message' && [e.text, e.sender.account.toHex()]), [['hello bob', alice.fingerprint.toHex()]]);
  const atA = (await drain(a)).filter((e) => e.type === 'message');
  assert.deepEqual(atA.map((e) => e.type === 'message' && e.text), ['hello alice']);

  // Bob adds Carol; everyone agrees; Carol reads what follows.
  assert.equal((await b.invite(carol.account.fingerprint())).outcome, 'committed');
  assert.deepEqual(await Conversation.acceptWelcomes(carol), [a.topic]);
  const c = await Conversation.open(carol, a.topic);
  await assertAgree([a, b, c]);
  const addedAtA = (await drain(a)).filter((e) => e.type === 'memberAdded');
  assert.deepEqual(addedAtA.map((e) => e.type === 'memberAdded' && e.member.account.toHex()), [carol.fingerprint.toHex()]);

  // Self-update by Carol (a Commit with a path), then a message from her.
  const before = hex(a.epochAuthenticator);
  assert.equal((await c.update()).outcome, 'committed');
  await assertAgree([a, b, c]);
  assert.notEqual(hex(a.epochAuthenticator), before);
  await c.send('carol here');
  assert.deepEqual(
    (await drain(b)).filter((e) => e.type === 'message').map((e) => e.type === 'message' && e.text),
    ['carol here'],
  );

  // Alice removes Bob: Bob sees `removed`, still fetches, opens nothing after.
  await drain(b);
  assert.equal((await a.removeAccount(bob.account.fingerprint())).outcome, 'committed');
  const bobEvents = await drain(b);
  assert.ok(bobEvents.some((e) => e.type === 'removed'), 'Bob learns he was removed');
  assert.ok(b.removed);
  await assertAgree([a, c]);
  await a.send('after bob left');
  await assert.rejects(b.send('still here?'), { code: 'Removed' });
  // Bob still fetches the topic: what follows his removal is refused, unread.
  const after = await drain(b);
  // (The text, and the views messages the others sent after the Commit, docs/MLS.md §4.7.)
  assert.ok(after.length >= 1, 'Bob reads the records after his removal');
  for (const e of after) {
    assert.equal(e.type, 'recordRefused', 'nothing after the removal opens for Bob');
    assert.match(e.type === 'recordRefused' ? e.reason : '', /removed/);
  }

  // Carol leaves: Alice's next Commit (an update) includes her Proposal.
  await c.leave();
  await a.catchUp();
  assert.equal((await a.update()).outcome, 'committed');
  const carolEvents = await drain(c);
  assert.ok(carolEvents.some((e) => e.type === 'removed'), 'Carol sees her own removal');
  assert.deepEqual(a.members.map((m) => m.device.toHex()), [alice.fingerprint.toHex()]);
});

test('a state store holds the conversation across a restart of the device', async (t) => {
  const broker = await startBroker({ config: MLS_POLICY });
  t.after(() => broker.stop());
  const alice = await account(broker.url, t);
  const bobIdentity = await Identity.generate({ extractable: false });
  const store = new MemoryStore();
  const bobClient = await connect(broker.url, { identity: bobIdentity });
  const bob = await Device.open(bobClient, bobIdentity, store);
  await bob.publishKeyPackages(2);
  const a = await Conversation.create(alice);
  await a.invite(bob.fingerprint);
  await Conversation.acceptWelcomes(bob);
  await a.send('one');
  await bobClient.close();

  // A new process: the same identity and store, a new connection.
  const again = await connect(broker.url, { identity: bobIdentity });
  t.after(() => again.close());
  const bob2 = await Device.open(again, bobIdentity, store);
  assert.equal(bob2.keyPackagesHeld, 2, 'the used KeyPackage is gone, the others held');
  const [topic] = await Conversation.list(bob2);
  const b = await Conversation.open(bob2, topic);
  await a.send('two');
  assert.deepEqual(
    (await drain(b)).filter((e) => e.type === 'message').map((e) => e.type === 'message' && e.text),
    ['one', 'two'],
  );
  // Unacknowledged events come back; acknowledged ones do not.
  await a.send('three');
  const first = await b.receive();
  const reopened = await Conversation.open(bob2, topic);
  assert.deepEqual(
    (await reopened.receive()).map((e) => e.type),
    first.map((e) => e.type),
  );
});
