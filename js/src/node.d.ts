// The hand-written declarations of `hermitmq/node` (node.js), the part of
// the SDK for Node only. test/types.test.mjs holds them to the code.

import type { ClientError, KnownBrokers, StateAnchor, StateAnchors } from './index.js';

/** The file's name inside the state directory: `known-brokers`. */
export const KNOWN_BROKERS_FILE: 'known-brokers';

export type KnownBrokersErrorKind = 'Malformed' | 'Permissions' | 'Io';

/** The known-brokers file cannot be used (code 'KnownBrokers'). */
export class KnownBrokersError extends ClientError {
  constructor(kind: KnownBrokersErrorKind, message: string, details: { path: string; line?: number; cause?: unknown });
  readonly kind: KnownBrokersErrorKind;
  /** The file or directory at fault. */
  readonly path: string;
  /** Malformed: the line, from 1. */
  readonly line: number | undefined;
}

/** Known brokers in `<state directory>/known-brokers` (one `<name> <port> <broker id>` line each). */
export class KnownBrokersFile implements KnownBrokers {
  constructor(dir: string);
  /** Create the directory (0700) if missing; refuse one (or a file) others may access; parse the file. */
  static open(dir: string): Promise<KnownBrokersFile>;
  readonly path: string;
  readonly location: string;
  get(name: string, port: number): Promise<Uint8Array | undefined>;
  set(name: string, port: number, brokerId: Uint8Array): Promise<void>;
  list(): Promise<Array<{ name: string; port: number; brokerId: Uint8Array }>>;
}

/** The file's name inside the state directory: `state-anchors`. */
export const STATE_ANCHORS_FILE: 'state-anchors';

/** The state-anchors file cannot be used (code 'StateAnchors'). */
export class StateAnchorsError extends ClientError {
  constructor(kind: 'Malformed' | 'Io', message: string, details: { path: string; line?: number; cause?: unknown });
  readonly kind: 'Malformed' | 'Io';
  readonly path: string;
  readonly line: number | undefined;
}

/** Sealed-state anchors in `<state directory>/state-anchors`, the Rust SDK's file and format. */
export class StateAnchorsFile implements StateAnchors {
  constructor(dir: string);
  /** Create the directory (0700) if missing; parse the file if present. */
  static open(dir: string): Promise<StateAnchorsFile>;
  readonly path: string;
  readonly location: string;
  get(broker: string, keyHex: string): Promise<StateAnchor | undefined>;
  set(broker: string, keyHex: string, anchor: StateAnchor): Promise<void>;
}

/** The lock file's name inside the state directory: `lock`. */
export const STATE_LOCK_FILE: 'lock';

export type StateDirectoryErrorKind = 'Locked' | 'Permissions' | 'Io';

/** The state directory cannot be used (code 'StateDirectory'). */
export class StateDirectoryError extends ClientError {
  constructor(kind: StateDirectoryErrorKind, message: string, details: { path: string; pid?: number; cause?: unknown });
  readonly kind: StateDirectoryErrorKind;
  /** The directory. */
  readonly path: string;
  /** Locked: the process holding it. */
  readonly pid: number | undefined;
}

/** The client state directory, held by this process (its pid in `lock`) until `close()`. */
export class StateDirectory {
  constructor(path: string);
  /** Create (0700) if missing; refuse one others may access or another live process holds; hold it. */
  static open(dir: string): Promise<StateDirectory>;
  readonly path: string;
  knownBrokers(): Promise<KnownBrokersFile>;
  stateAnchors(): Promise<StateAnchorsFile>;
  close(): Promise<void>;
}
