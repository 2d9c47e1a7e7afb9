import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ack, CLAIM_ID_LEN, MAX_LIST_LIMIT, Op, brokerError, carriesBatch, decodeResponse, encodeRequest, encodeResponse } from '../src/protocol/frame.js';
import { BatchBuilder, batches, decodeRecordHeader, parseBatch, records, verifyCrc } from '../src/protocol/record.js';
import { BrokerFlags, decodeBrokerHello, encodeBrokerHello, encodeClientHello } from '../src/protocol/hello.js';
import { ClientError, WireError } from '../src/protocol/error.js';
import { Status, STATUS_NAMES } from '../src/protocol/status.js';
import { U64_MAX } from '../src/protocol/codec.js';
import { authTranscript } from '../src/protocol/auth.js';
import { cursorNameError, groupNameError, topicNameError } from '../src/protocol/topic.js';
import { parseFetch } from './helpers/fake-broker.mjs';

const enc = new TextEncoder();
const hex = (/** @type {string} */ s) => Uint8Array.from(/** @type {string[]} */ (s.match(/../g)).map((b) => parseInt(b, 16)));
const toHex = (/** @type {Uint8Array} */ b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

// Batches made by the Rust side (hermit_protocol::record::BatchBuilder).
const RUST_TWO = // key "key", records "hello" "world", ts 1_700_000_000_000_000_000
  '02000000000000000057f154e617979cfe362a00000000000300000012000000026b65790000000568656c6c6f00000005776f726c64';
const RUST_TOMBSTONE = // BatchBuilder::tombstone(b"gone", 42)
  '020000000000000000c62a903c000000000000002a000000040000000000000001676f6e65';
const RUST_EMPTY_AND_BYTES_CRC = 0xd210ac03; // records [] and 0..=255, no key, ts 7

test('BatchBuilder writes the same bytes as the Rust BatchBuilder', () => {
  const b = new BatchBuilder(enc.encode('key'));
  b.push(enc.encode('hello'));
  b.push(enc.encode('world'));
  assert.equal(toHex(b.finish(1_700_000_000_000_000_000n)), RUST_TWO);
  assert.equal(toHex(BatchBuilder.tombstone(enc.encode('gone'), 42n)), RUST_TOMBSTONE);
  const c = new BatchBuilder();
  c.push(new Uint8Array(0));
  c.push(Uint8Array.from({ length: 256 }, (_, i) => i));
  const bytes = c.finish(7n);
  assert.equal(decodeRecordHeader(bytes).crc, RUST_EMPTY_AND_BYTES_CRC);
});

test('a Rust batch parses, verifies and yields its records; base offset is not covered', () => {
  const bytes = hex(RUST_TWO);
  new DataView(bytes.buffer).setBigUint64(1, 12345n);
  const [batch, ...rest] = [...batches(bytes)];
  assert.equal(rest.length, 0);
  verifyCrc(batch);
  assert.equal(batch.header.baseOffset, 12345);
  assert.equal(batch.header.timestampNs, 1_700_000_000_000_000_000n);
  assert.deepEqual(batch.key, enc.encode('key'));
  assert.deepEqual([...records(batch.payload, batch.header.recordCount)].map((r) => new TextDecoder().decode(r)), ['hello', 'world']);
  const t = parseBatch(hex(RUST_TOMBSTONE));
  verifyCrc(t);
  assert.deepEqual([...records(t.payload, t.header.recordCount)], [new Uint8Array(0)]);
});

test('every flipped covered bit fails the CRC or the structure check', () => {
  const good = hex(RUST_TWO);
  for (let bit = 13 * 8; bit < good.length * 8; bit++) {
    const bytes = good.slice();
    bytes[bit >> 3] ^= 1 << (bit & 7);
    assert.throws(() => {
      for (const b of batches(bytes)) {
        verifyCrc(b);
      }
    }, WireError, `bit ${bit}`);
  }
});

test('malformed batches are typed errors, checked before allocation', () => {
  const good = hex(RUST_TWO);
  const kinds = (/** @type {Uint8Array} */ bytes) => {
    try {
      for (const b of batches(bytes)) [...records(b.payload, b.header.recordCount)];
      return 'ok';
    } catch (e) {
      assert.ok(e instanceof WireError);
      assert.equal(e.code, 'Protocol');
      return e.kind;
    }
  };
  assert.equal(kinds(good), 'ok');
  assert.equal(kinds(good.subarray(0, 10)), 'UnexpectedEof');
  assert.equal(kinds(good.subarray(0, good.length - 1)), 'UnexpectedEof');
  const magic = good.slice(); magic[0] = 1;
  assert.equal(kinds(magic), 'BadMagic');
  const zero = good.slice(); new DataView(zero.buffer).setUint32(29, 0);
  assert.equal(kinds(zero), 'EmptyBatch');
  const many = good.slice(); new DataView(many.buffer).setUint32(29, 1000);
  assert.equal(kinds(many), 'InvalidField');
  // A declared payload of 4 GiB: refused from the header, nothing allocated.
  const huge = good.slice(); new DataView(huge.buffer).setUint32(25, 0xffffffff);
  assert.equal(kinds(huge), 'UnexpectedEof');
  const one = good.slice(); new DataView(one.buffer).setUint32(29, 1);
  assert.equal(kinds(one), 'BadPayload');
  assert.throws(() => [...records(Uint8Array.of(0xff, 0xff, 0xff, 0xff), 1)], /runs past/);
  assert.throws(() => [...records(new Uint8Array(0), 2)], /cut short/);
  assert.throws(() => new BatchBuilder().finish(), (/** @type {any} */ e) => e.kind === 'EmptyBatch');
});

test('hellos: client hello bytes, broker hello round trip, other versions refused', () => {
  assert.deepEqual(encodeClientHello(), Uint8Array.of(0x48, 0x4d, 0x51, 3, 0, 0, 0, 0));
  const h = { maxFrame: 1048572, flags: BrokerFlags.AUTH_REQUIRED | BrokerFlags.AUTH_AVAILABLE, nonce: new Uint8Array(32).fill(7), brokerId: new Uint8Array(16).fill(9) };
  const bytes = encodeBrokerHello(h);
  assert.equal(bytes.length, 61);
  const back = decodeBrokerHello(bytes);
  assert.deepEqual({ ...back, version: undefined }, { ...h, version: undefined });
  assert.throws(() => decodeBrokerHello(Uint8Array.of(0x48, 0x4d, 0x51, 2, 0, 0, 1, 0)), (/** @type {any} */ e) => e.code === 'UnsupportedVersion' && /version 2/.test(e.message));
  assert.throws(() => decodeBrokerHello(Uint8Array.of(0x48, 0x54, 0x54, 0x50, 0, 0, 0, 0)), (/** @type {any} */ e) => e.kind === 'BadHello');
  assert.throws(() => decodeBrokerHello(bytes.subarray(0, 60)), (/** @type {any} */ e) => e.kind === 'UnexpectedEof');
  const extra = new Uint8Array(62); extra.set(bytes);
  assert.throws(() => decodeBrokerHello(extra), (/** @type {any} */ e) => e.kind === 'LengthMismatch');
});

test('auth transcript is label, nonce, id length, id, spki', () => {
  const t = authTranscript(new Uint8Array(32).fill(1), new Uint8Array(16).fill(2), Uint8Array.of(3, 4, 5));
  assert.equal(new TextDecoder().decode(t.subarray(0, 14)), 'hermit-auth/v1');
  assert.deepEqual(t.subarray(14, 46), new Uint8Array(32).fill(1));
  assert.equal(t[46], 16);
  assert.deepEqual(t.subarray(47, 63), new Uint8Array(16).fill(2));
  assert.deepEqual(t.subarray(63), Uint8Array.of(3, 4, 5));
});

test('request frames have the layout of protocol/src/frame.rs', () => {
  const fetch = encodeRequest(7, { op: 'fetch', topic: 'ab', partition: 2, offset: 9, maxBytes: 1000, maxWaitMs: 500 });
  assert.equal(toHex(fetch), '0000001c' + '02' + '00000007' + '026162' + '00000002' + '0000000000000009' + '000003e8' + '000001f4');
  const commit = encodeRequest(1, { op: 'commit', group: 'g', topic: 't', partition: 0, offset: 5 });
  assert.equal(toHex(commit), '00000015' + '03' + '00000001' + '0167' + '0174' + '00000000' + '0000000000000005');
  assert.equal(toHex(encodeRequest(3, { op: 'ping' })), '00000005' + '08' + '00000003');
  assert.equal(toHex(encodeRequest(3, { op: 'metadata' })), '00000005' + '05' + '00000003');
  assert.equal(toHex(encodeRequest(3, { op: 'metadata', topic: 'x' })), '00000007' + '05' + '00000003' + '0178');
  const ct = encodeRequest(4, { op: 'createTopic', topic: 'x', partitions: 3, cleanup: 1, retentionMs: U64_MAX });
  assert.equal(toHex(ct), '0000001c' + '06' + '00000004' + '0178' + '00000003' + '01' + 'ffffffffffffffff' + '0000000000000000');
  const batch = hex(RUST_TWO);
  const p = encodeRequest(5, { op: 'produce', topic: 't', partition: 1, ack: Ack.Durable, batch });
  assert.equal(toHex(p), (9 - 4 + 2 + 4 + 1 + batch.length).toString(16).padStart(8, '0') + '01' + '00000005' + '0174' + '00000001' + '01' + RUST_TWO);
  const auth = encodeRequest(1, { op: 'authenticate', spki: Uint8Array.of(1, 2), signature: Uint8Array.of(3), name: 'b', channelBinding: Uint8Array.of(4) });
  assert.equal(toHex(auth), '00000011' + '09' + '00000001' + '02' + '00020102' + '000103' + '0162' + '0104');
  const unbound = encodeRequest(1, { op: 'authenticate', mechanism: 1, spki: Uint8Array.of(1, 2), signature: Uint8Array.of(3) });
  assert.equal(toHex(unbound), '0000000d' + '09' + '00000001' + '01' + '00020102' + '000103');
});

test("a fetch's min bytes part: written only when minBytes > 1, bytes as protocol/src/op/fetch.rs writes them", () => {
  const fetch = (/** @type {number|undefined} */ minBytes, /** @type {number|undefined} */ minWaitMs) =>
    encodeRequest(3, { op: 'fetch', topic: 't', partition: 0, offset: 7, maxBytes: 1 << 20, maxWaitMs: 500, minBytes, minWaitMs });
  // The Rust frame test's fetch_with(1, 9) / fetch_with(4096, 20), correlation id 3.
  const plainHex = '0000001b' + '02' + '00000003' + '0174' + '00000000' + '0000000000000007' + '00100000' + '000001f4';
  const plain = fetch(1, 9);
  assert.equal(toHex(plain), plainHex);
  // No part asked (omitted, 0 or 1): byte for byte the old fetch.
  assert.equal(toHex(fetch(undefined, undefined)), plainHex);
  assert.equal(toHex(fetch(0, 0)), plainHex);
  const held = fetch(4096, 20);
  assert.equal(toHex(held), '00000023' + plainHex.slice(8) + '00001000' + '00000014');
  // Decoded as the broker decodes a body (after the 9-byte head).
  assert.deepEqual(parseFetch(plain.subarray(9)), { topic: 't', partition: 0, offset: 7, maxBytes: 1 << 20, maxWaitMs: 500, minBytes: 1, minWaitMs: 0, trailing: false });
  assert.deepEqual(parseFetch(held.subarray(9)), { topic: 't', partition: 0, offset: 7, maxBytes: 1 << 20, maxWaitMs: 500, minBytes: 4096, minWaitMs: 20, trailing: true });
  assert.throws(() => parseFetch(held.subarray(9, held.length - 4)));
  // Both values are checked as u32s, with the part written or not.
  for (const [minBytes, minWaitMs] of [[-1, 0], [2 ** 32, 0], [1.5, 0], [1, -1], [4096, 2 ** 32]]) {
    assert.throws(() => fetch(minBytes, minWaitMs), (/** @type {any} */ e) => e instanceof ClientError && e.code === 'InvalidArgument', `${minBytes}, ${minWaitMs}`);
  }
  assert.equal(BrokerFlags.FETCH_MIN_BYTES, 1 << 4);
});

test('requests with bad arguments are refused before anything is sent', () => {
  const bad = (/** @type {any} */ req, code = 'InvalidArgument') => assert.throws(() => encodeRequest(1, req), (/** @type {any} */ e) => e instanceof ClientError && e.code === code, JSON.stringify(req));
  bad({ op: 'fetch', topic: '../etc', partition: 0, offset: 0, maxBytes: 1, maxWaitMs: 0 }, 'InvalidName');
  bad({ op: 'fetch', topic: '__consumer_offsets', partition: 0, offset: 0, maxBytes: 1, maxWaitMs: 0 }, 'InvalidName');
  bad({ op: 'fetch', topic: 't', partition: -1, offset: 0, maxBytes: 1, maxWaitMs: 0 });
  bad({ op: 'fetch', topic: 't', partition: 0, offset: 2 ** 53, maxBytes: 1, maxWaitMs: 0 });
  bad({ op: 'commit', group: 'a\nb', topic: 't', partition: 0, offset: 0 }, 'InvalidName');
  bad({ op: 'createTopic', topic: 't', partitions: 0 });
  bad({ op: 'createTopic', topic: 't', partitions: 4097 });
  bad({ op: 'produce', topic: 't', partition: 0, ack: 2, batch: hex(RUST_TWO) });
  const corrupt = hex(RUST_TWO); corrupt[0] = 9;
  bad({ op: 'produce', topic: 't', partition: 0, ack: 0, batch: corrupt }, 'Protocol');
  bad({ op: 'authenticate', spki: new Uint8Array(513), signature: new Uint8Array(64) });
  assert.equal(topicNameError('a.b-c_D9'), null);
  assert.match(/** @type {string} */ (topicNameError('a'.repeat(250))), /250 bytes/);
  assert.match(/** @type {string} */ (topicNameError('..')), /not names/);
  assert.equal(groupNameError('alice’s group'), null);
  assert.match(/** @type {string} */ (groupNameError('\u0085')), /printable/);
});

test('responses decode per op; errors carry the status name and bounds', () => {
  const records = hex(RUST_TWO);
  const f = decodeResponse(encodeResponse(9, Op.Fetch, { body: { highWatermark: 10, logStart: 2, records } }));
  assert.deepEqual({ ...f, body: { ...f.body, records: [...f.body.records] } }, { correlationId: 9, op: Op.Fetch, ok: true, body: { highWatermark: 10, logStart: 2, records: [...records] } });
  assert.deepEqual(decodeResponse(encodeResponse(1, Op.Produce, { body: { baseOffset: 77 } })).body, { baseOffset: 77 });
  assert.deepEqual(decodeResponse(encodeResponse(1, Op.Committed, { body: { offset: null } })).body, { offset: null });
  assert.deepEqual(decodeResponse(encodeResponse(1, Op.Committed, { body: { offset: 4 } })).body, { offset: 4 });
  const meta = [{ name: 't', cleanup: 1, retentionMs: 5n, retentionBytes: U64_MAX, partitions: [{ partition: 0, logStart: 1, highWatermark: 3 }] }];
  assert.deepEqual(decodeResponse(encodeResponse(1, Op.Metadata, { body: meta })).body, meta);
  const e = decodeResponse(encodeResponse(3, Op.Fetch, { error: { status: 'OffsetOutOfRange', message: 'no', bounds: [4, 8] } }));
  assert.deepEqual(e.error, { status: 'OffsetOutOfRange', statusCode: 3, message: 'no', bounds: [4, 8] });
  const oor = brokerError(e.error);
  assert.equal(oor.code, 'OffsetOutOfRange');
  assert.equal(oor.logStart, 4);
  assert.equal(oor.highWatermark, 8);
  const denied = brokerError(/** @type {import('../src/protocol/frame.js').ErrorBody} */ (decodeResponse(encodeResponse(2, Op.Produce, { error: { status: 'Unauthorized', message: 'not authorized to produce t as anonymous' } })).error));
  assert.equal(denied.message, 'not authorized to produce t as anonymous');
  assert.equal(denied.status, 'Unauthorized');
  assert.ok(denied.isAuth && !denied.retriable);
  assert.ok(brokerError({ status: 'StorageError', statusCode: 6, message: 'disk', bounds: null }).retriable);
  assert.equal(STATUS_NAMES.length, 23);
  assert.equal(Status.OffsetAheadOfLog, 19);
  assert.deepEqual([Status.EndMoved, Status.NothingToClaim, Status.RateLimited], [20, 21, 22]);
});

test('malformed responses are typed errors', () => {
  /**
   * @param {Uint8Array} bytes
   * @param {number} [max]
   */
  const kind = (bytes, max) => {
    try { decodeResponse(bytes, max); return 'ok'; } catch (e) { assert.ok(e instanceof WireError); return e.kind; }
  };
  const ping = encodeResponse(1, Op.Ping, {});
  assert.equal(kind(ping), 'ok');
  assert.equal(kind(ping.subarray(0, 3)), 'UnexpectedEof');
  assert.equal(kind(Uint8Array.of(0, 0, 0, 2, 0x88, 0)), 'FrameTooShort');
  assert.equal(kind(ping, 6), 'FrameTooLarge');
  const longer = new Uint8Array(ping.length + 1); longer.set(ping);
  assert.equal(kind(longer), 'LengthMismatch');
  const noBit = ping.slice(); noBit[4] = 0x08;
  assert.equal(kind(noBit), 'InvalidField');
  const unknownOp = ping.slice(); unknownOp[4] = 0xff;
  assert.equal(kind(unknownOp), 'UnknownOp');
  const badStatus = ping.slice(); badStatus[10] = 99;
  assert.equal(kind(badStatus), 'InvalidField');
  // A metadata count the frame cannot hold is refused before allocating.
  const meta = encodeResponse(1, Op.Metadata, { body: [] });
  new DataView(meta.buffer).setUint32(11, 0xffffffff);
  assert.equal(kind(meta), 'UnexpectedEof');
  // A fetch claiming more record bytes than the frame carries.
  const f = encodeResponse(1, Op.Fetch, { body: { highWatermark: 0, logStart: 0, records: new Uint8Array(0) } });
  new DataView(f.buffer).setUint32(27, 100);
  assert.equal(kind(f), 'UnexpectedEof');
  const msg = encodeResponse(1, Op.Ping, { error: { status: 'Unauthorized', message: 'x' } });
  msg[13] = 0xff;
  assert.equal(kind(msg), 'InvalidField');
  const big = encodeResponse(1, Op.Produce, { body: { baseOffset: 2 ** 53 } });
  assert.equal(kind(big), 'InvalidField');
});

test('ListTopics: request bytes as protocol/src/frame.rs, pages round trip, bad cursors and limits refused', () => {
  assert.equal(Op.ListTopics, 0x0a);
  assert.equal(MAX_LIST_LIMIT, 1000);
  // after (u8 len + name, empty = from the first), limit u32.
  assert.equal(toHex(encodeRequest(3, { op: 'listTopics', limit: 1000 })), '0000000a' + '0a' + '00000003' + '00' + '000003e8');
  assert.equal(toHex(encodeRequest(3, { op: 'listTopics', after: 't.1', limit: 10 })), '0000000d' + '0a' + '00000003' + '03742e31' + '0000000a');
  // A cursor may be internal; it follows the charset rules of names.
  assert.doesNotThrow(() => encodeRequest(1, { op: 'listTopics', after: '__consumer_offsets', limit: 1 }));
  assert.equal(cursorNameError('__consumer_offsets'), null);
  assert.notEqual(cursorNameError('a/b'), null);
  assert.throws(() => encodeRequest(1, { op: 'listTopics', after: 'a b', limit: 1 }), (/** @type {any} */ e) => e.code === 'InvalidName');
  for (const limit of [0, 1001, 1.5, -1]) {
    assert.throws(() => encodeRequest(1, { op: 'listTopics', limit }), (/** @type {any} */ e) => e.code === 'InvalidArgument', `limit ${limit}`);
  }
  const topic = { name: 't.1', cleanup: 0, retentionMs: 5n, retentionBytes: U64_MAX, partitions: [{ partition: 0, logStart: 1, highWatermark: 9 }] };
  for (const next of ['t.1', '__consumer_offsets', null]) {
    const frame = encodeResponse(4, Op.ListTopics, { body: { topics: [topic], next } });
    const r = decodeResponse(frame);
    assert.equal(r.op, Op.ListTopics);
    assert.deepEqual(r.body, { topics: [topic], next });
  }
  // Counts over MAX_LIST_LIMIT, or more than the frame holds, are refused before reading on.
  const head = (/** @type {number} */ n) => {
    const f = new Uint8Array(15);
    const v = new DataView(f.buffer);
    v.setUint32(0, 11);
    f[4] = Op.ListTopics | 0x80;
    v.setUint32(5, 1);
    v.setUint32(11, n);
    return f;
  };
  assert.throws(() => decodeResponse(head(1001)), (/** @type {any} */ e) => e instanceof WireError && e.kind === 'InvalidField');
  assert.throws(() => decodeResponse(head(1000)), (/** @type {any} */ e) => e instanceof WireError && e.kind === 'UnexpectedEof');
  // A cursor that breaks the charset rules is a protocol error.
  const bad = encodeResponse(4, Op.ListTopics, { body: { topics: [], next: 'a/b' } });
  assert.throws(() => decodeResponse(bad), (/** @type {any} */ e) => e instanceof WireError && e.kind === 'InvalidName');
});

test('ConditionalProduce and Claim: request bytes as protocol/src/op/*.rs, arguments checked', () => {
  assert.equal(Op.ConditionalProduce, 0x0b);
  assert.equal(Op.Claim, 0x0c);
  assert.equal(CLAIM_ID_LEN, 16);
  // topic, partition u32, ack u8, expected_end u64, then the batch.
  const batch = hex(RUST_TWO);
  const c = encodeRequest(5, { op: 'conditionalProduce', topic: 't', partition: 1, ack: Ack.Durable, expectedEnd: 0x1234, batch });
  assert.equal(toHex(c), (9 - 4 + 2 + 4 + 1 + 8 + batch.length).toString(16).padStart(8, '0') + '0b' + '00000005' + '0174' + '00000001' + '01' + '0000000000001234' + RUST_TWO);
  // topic, partition u32, claim_id [16].
  const id = Uint8Array.from({ length: 16 }, (_, i) => i);
  const k = encodeRequest(6, { op: 'claim', topic: 'jobs', partition: 2, claimId: id });
  assert.equal(toHex(k), '0000001e' + '0c' + '00000006' + '046a6f6273' + '00000002' + '000102030405060708090a0b0c0d0e0f');
  // Only a conditional produce is sized like a Produce; a claim is a control frame.
  assert.ok(carriesBatch('conditionalProduce') && carriesBatch('produce') && !carriesBatch('claim'));
  const bad = (/** @type {any} */ req, code = 'InvalidArgument') => assert.throws(() => encodeRequest(1, req), (/** @type {any} */ e) => e instanceof ClientError && e.code === code, JSON.stringify(req));
  const cp = /** @type {const} */ ({ op: 'conditionalProduce', topic: 't', partition: 0, ack: Ack.Written, expectedEnd: 0, batch });
  assert.doesNotThrow(() => encodeRequest(1, cp));
  bad({ ...cp, expectedEnd: -1 });
  bad({ ...cp, expectedEnd: 2 ** 53 });
  bad({ ...cp, expectedEnd: 1.5 });
  bad({ ...cp, ack: 2 });
  bad({ ...cp, topic: '../x' }, 'InvalidName');
  const corrupt = hex(RUST_TWO); corrupt[0] = 9;
  bad({ ...cp, batch: corrupt }, 'Protocol');
  const trailing = new Uint8Array(batch.length + 1); trailing.set(batch);
  bad({ ...cp, batch: trailing });
  bad({ op: 'claim', topic: 'jobs', partition: 0, claimId: new Uint8Array(15) });
  bad({ op: 'claim', topic: 'jobs', partition: 0, claimId: new Uint8Array(17) });
  bad({ op: 'claim', topic: 'jobs', partition: 0, claimId: Array.from(id) });
  bad({ op: 'claim', topic: 'jobs', partition: -1, claimId: id });
});

test('ConditionalProduce and Claim answers round trip; EndMoved carries the log start and end, the claim statuses nothing', () => {
  assert.deepEqual(decodeResponse(encodeResponse(1, Op.ConditionalProduce, { body: { baseOffset: 41 } })), { correlationId: 1, op: Op.ConditionalProduce, ok: true, body: { baseOffset: 41 } });
  const batch = hex(RUST_TWO);
  const claim = decodeResponse(encodeResponse(2, Op.Claim, { body: { offset: 7, next: 9, batch } }));
  assert.equal(claim.op, Op.Claim);
  assert.deepEqual({ ...claim.body, batch: [...claim.body.batch] }, { offset: 7, next: 9, batch: [...batch] });
  // offset u64, next u64, u32 n, n bytes.
  const bytes = encodeResponse(2, Op.Claim, { body: { offset: 7, next: 9, batch } });
  assert.equal(toHex(bytes.subarray(11)), '0000000000000007' + '0000000000000009' + batch.length.toString(16).padStart(8, '0') + RUST_TWO);
  const moved = decodeResponse(encodeResponse(3, Op.ConditionalProduce, { error: { status: 'EndMoved', message: 'the log ends at 12', bounds: [3, 12] } }));
  assert.deepEqual(moved.error, { status: 'EndMoved', statusCode: 20, message: 'the log ends at 12', bounds: [3, 12] });
  const e = brokerError(/** @type {import('../src/protocol/frame.js').ErrorBody} */ (moved.error));
  assert.equal(e.code, 'EndMoved');
  assert.equal(e.end, 12);
  assert.equal(e.logStart, 3);
  assert.equal(e.highWatermark, undefined);
  assert.ok(!e.retriable);
  for (const status of ['NothingToClaim', 'RateLimited']) {
    const r = decodeResponse(encodeResponse(4, Op.Claim, { error: { status, message: 'm' } }));
    assert.deepEqual(r.error, { status, statusCode: Status[status], message: 'm', bounds: null });
    const err = brokerError(/** @type {any} */ (r.error));
    assert.equal(err.code, 'Broker');
    assert.equal(err.status, status);
    assert.ok(!err.retriable, status);
  }
});

test('hostile ConditionalProduce and Claim answers are typed errors: truncated, bounds missing or extra', () => {
  const kind = (/** @type {Uint8Array} */ bytes) => {
    try { decodeResponse(bytes); return 'ok'; } catch (e) { assert.ok(e instanceof WireError); return e.kind; }
  };
  /** A frame with its length prefix fixed up for `bytes`. */
  const framed = (/** @type {Uint8Array} */ bytes) => {
    const f = bytes.slice();
    new DataView(f.buffer).setUint32(0, f.length - 4);
    return f;
  };
  const batch = hex(RUST_TWO);
  const claim = encodeResponse(2, Op.Claim, { body: { offset: 0, next: 2, batch } });
  assert.equal(kind(claim), 'ok');
  // Cut anywhere in offset, next, n or the batch: never a short read believed.
  for (const cut of [11, 15, 19, 26, 30, claim.length - 1]) {
    assert.equal(kind(framed(claim.subarray(0, cut))), 'UnexpectedEof', `cut at ${cut}`);
  }
  // n claims more bytes than the frame holds (4 GiB): refused before allocating.
  const huge = claim.slice(); new DataView(huge.buffer).setUint32(27, 0xffffffff);
  assert.equal(kind(huge), 'UnexpectedEof');
  // n claims fewer: the rest is left over.
  const short = claim.slice(); new DataView(short.buffer).setUint32(27, batch.length - 1);
  assert.equal(kind(short), 'LengthMismatch');
  // Offsets beyond 2^53 are refused, as everywhere.
  assert.equal(kind(encodeResponse(2, Op.Claim, { body: { offset: 2 ** 53, next: 2, batch } })), 'InvalidField');
  assert.equal(kind(encodeResponse(2, Op.ConditionalProduce, { body: { baseOffset: 2 ** 53 } })), 'InvalidField');
  assert.equal(kind(framed(encodeResponse(2, Op.ConditionalProduce, { body: { baseOffset: 1 } }).subarray(0, 18))), 'UnexpectedEof');
  // EndMoved without its bounds, or with one of the two.
  const moved = encodeResponse(3, Op.ConditionalProduce, { error: { status: 'EndMoved', message: 'm', bounds: [1, 2] } });
  assert.equal(kind(moved), 'ok');
  assert.equal(kind(framed(moved.subarray(0, moved.length - 16))), 'UnexpectedEof');
  assert.equal(kind(framed(moved.subarray(0, moved.length - 8))), 'UnexpectedEof');
  // NothingToClaim with bounds after its message: bytes left over.
  const nothing = encodeResponse(3, Op.Claim, { error: { status: 'NothingToClaim', message: 'm' } });
  const extra = new Uint8Array(nothing.length + 16); extra.set(nothing);
  assert.equal(kind(framed(extra)), 'LengthMismatch');
});
