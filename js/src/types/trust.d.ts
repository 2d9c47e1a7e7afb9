// Declarations of trust/: safety numbers (docs/SECURITY.md §6).
// Part of the hand-written public API (../index.d.ts); test/types.test.mjs
// holds it to the code.

import type { PublicKey } from './crypto.js';

// ---- trust/safety.js --------------------------------------------------------

/** Digits of one account's half. */
export const HALF_DIGITS: 30;
/** Digits of a safety number. */
export const SAFETY_NUMBER_DIGITS: 60;

/** The 60 digits two people compare to check each other's account key. */
export class SafetyNumber {
  private constructor();
  /** The 60 digits, no separators. */
  readonly digits: string;
  equals(other: SafetyNumber): boolean;
  /** 12 groups of 5 digits separated by spaces. */
  toString(): string;
}

/** The 30 digits of one account, from its key alone. Rejects with KeyError kind InvalidArgument for anything but a PublicKey. */
export function accountHalf(publicKey: PublicKey): Promise<string>;
/** The safety number of two accounts: the same whichever is `a`. */
export function safetyNumber(a: PublicKey, b: PublicKey): Promise<SafetyNumber>;
