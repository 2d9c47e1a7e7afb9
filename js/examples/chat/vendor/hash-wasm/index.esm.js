/*!
 * hash-wasm (https://www.npmjs.com/package/hash-wasm)
 * (c) Dani Biro
 * @license MIT
 */

var name$l = "adler32";
var data$l = "AGFzbQEAAAABDANgAAF/YAAAYAF/AAMHBgABAgEAAgUEAQECAgYPAn8BQYCABAt/AEGAgAQLB4IBCQZtZW1vcnkCAA9fX3N0YWNrX3BvaW50ZXIDAA5IYXNoX0dldEJ1ZmZlcgAACUhhc2hfSW5pdAABC0hhc2hfVXBkYXRlAAIKSGFzaF9GaW5hbAADDUhhc2hfR2V0U3RhdGUABA5IYXNoX0NhbGN1bGF0ZQAFClNUQVRFX1NJWkUDAQqGDAYGAEGAgQQLCwBBAEEBNgKEgAQLigsBCn9BACgChIAEIgFB//8DcSECIAFBEHYhAwJAAkAgAEEBRw0AIAJBAC0AgIEEaiIBQY+AfGogASABQfD/A0sbIgEgA2oiBEEQdCIFQYCAPGogBSAEQfD/A0sbIAFyIQEMAQsCQAJAAkACQAJAIABBEEkNAEGAgQQhBiAAQbArSQ0BQYCBBCEGA0BBACEFA0AgBiAFaiIBKAIAIgRB/wFxIAJqIgIgA2ogAiAEQQh2Qf8BcWoiAmogAiAEQRB2Qf8BcWoiAmogAiAEQRh2aiICaiACIAFBBGooAgAiBEH/AXFqIgJqIAIgBEEIdkH/AXFqIgJqIAIgBEEQdkH/AXFqIgJqIAIgBEEYdmoiAmogAiABQQhqKAIAIgRB/wFxaiICaiACIARBCHZB/wFxaiICaiACIARBEHZB/wFxaiICaiACIARBGHZqIgRqIAQgAUEMaigCACIBQf8BcWoiBGogBCABQQh2Qf8BcWoiBGogBCABQRB2Qf8BcWoiBGogBCABQRh2aiICaiEDIAVBEGoiBUGwK0cNAAsgA0Hx/wNwIQMgAkHx/wNwIQIgBkGwK2ohBiAAQdBUaiIAQa8rSw0ACyAARQ0EIABBD0sNAQwCCwJAIABFDQACQAJAIABBA3EiBA0AQYCBBCEBIAAhBAwBC0EAIQEDQCACIAFBgIEEai0AAGoiAiADaiEDIAQgAUEBaiIBRw0ACyAEQYCBBGohASAAQQxxIQQLIABBBEkNAAJAIARBfGoiBUEEcQ0AIAIgAS0AAGoiBCABLQABaiIGIAEtAAJqIgAgAS0AA2oiAiAAIAYgBCADampqaiEDIAFBBGohASAFIQQLIAVBBEkNAANAIAIgAS0AAGoiBSABQQFqLQAAaiIGIAFBAmotAABqIgAgAUEDai0AAGoiByABQQRqLQAAaiIIIAFBBWotAABqIgkgAUEGai0AAGoiCiABQQdqLQAAaiICIAogCSAIIAcgACAGIAUgA2pqampqampqIQMgAUEIaiEBIARBeGoiBA0ACwsgAkGPgHxqIAIgAkHw/wNLGyADQfH/A3BBEHRyIQEMBAsDQCAGKAIAIgFB/wFxIAJqIgQgA2ogBCABQQh2Qf8BcWoiBGogBCABQRB2Qf8BcWoiBGogBCABQRh2aiIEaiAEIAZBBGooAgAiAUH/AXFqIgRqIAQgAUEIdkH/AXFqIgRqIAQgAUEQdkH/AXFqIgRqIAQgAUEYdmoiBGogBCAGQQhqKAIAIgFB/wFxaiIEaiAEIAFBCHZB/wFxaiIEaiAEIAFBEHZB/wFxaiIEaiAEIAFBGHZqIgRqIAQgBkEMaigCACIBQf8BcWoiBGogBCABQQh2Qf8BcWoiBGogBCABQRB2Qf8BcWoiBGogBCABQRh2aiICaiEDIAZBEGohBiAAQXBqIgBBD0sNAAsgAEUNAQsCQAJAIABBA3EiBQ0AIAAhAQwBCyAFIQQgBiEBA0AgAiABLQAAaiICIANqIQMgAUEBaiEBIARBf2oiBA0ACyAGIAVqIQYgAEEMcSEBCyAAQQRJDQACQCABQXxqIgRBBHENACACIAYtAABqIgEgBi0AAWoiBSAGLQACaiIAIAYtAANqIgIgACAFIAEgA2pqamohAyAGQQRqIQYgBCEBCyAEQQRJDQADQCACIAYtAABqIgQgBkEBai0AAGoiBSAGQQJqLQAAaiIAIAZBA2otAABqIgcgBkEEai0AAGoiCCAGQQVqLQAAaiIJIAZBBmotAABqIgogBkEHai0AAGoiAiAKIAkgCCAHIAAgBSAEIANqampqampqaiEDIAZBCGohBiABQXhqIgENAAsLIANB8f8DcCEDIAJB8f8DcCECCyACIANBEHRyIQELQQAgATYChIAECykBAX9BAEEAKAKEgAQiAEH/gfwHcUEIeCAAQRh4Qf+B/AdxcjYCgIEECwYAQYSABAs0AEEAQQE2AoSABCAAEAJBAEEAKAKEgAQiAEH/gfwHcUEIeCAAQRh4Qf+B/AdxcjYCgIEECwsXAgBBgIAECwQEAAAAAEGEgAQLBAEAAAA=";
var hash$l = "1d004ff4";
var wasmJson$l = {
	name: name$l,
	data: data$l,
	hash: hash$l
};

/******************************************************************************
Copyright (c) Microsoft Corporation.

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH
REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY
AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT,
INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM
LOSS OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR
OTHER TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR
PERFORMANCE OF THIS SOFTWARE.
***************************************************************************** */
/* global Reflect, Promise, SuppressedError, Symbol, Iterator */


function __awaiter(thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
}

typeof SuppressedError === "function" ? SuppressedError : function (error, suppressed, message) {
    var e = new Error(message);
    return e.name = "SuppressedError", e.error = error, e.suppressed = suppressed, e;
};

class Mutex {
    constructor() {
        this.mutex = Promise.resolve();
    }
    lock() {
        let begin = () => { };
        this.mutex = this.mutex.then(() => new Promise(begin));
        return new Promise((res) => {
            begin = res;
        });
    }
    dispatch(fn) {
        return __awaiter(this, void 0, void 0, function* () {
            const unlock = yield this.lock();
            try {
                return yield Promise.resolve(fn());
            }
            finally {
                unlock();
            }
        });
    }
}

var _a;
function getGlobal() {
    if (typeof globalThis !== "undefined")
        return globalThis;
    if (typeof self !== "undefined")
        return self;
    if (typeof window !== "undefined")
        return window;
    return global;
}
const globalObject = getGlobal();
const nodeBuffer = (_a = globalObject.Buffer) !== null && _a !== void 0 ? _a : null;
const textEncoder = globalObject.TextEncoder
    ? new globalObject.TextEncoder()
    : null;
function intArrayToString(arr, len) {
    return String.fromCharCode(...arr.subarray(0, len));
}
function hexCharCodesToInt(a, b) {
    return ((((a & 0xf) + ((a >> 6) | ((a >> 3) & 0x8))) << 4) |
        ((b & 0xf) + ((b >> 6) | ((b >> 3) & 0x8))));
}
function writeHexToUInt8(buf, str) {
    const size = str.length >> 1;
    for (let i = 0; i < size; i++) {
        const index = i << 1;
        buf[i] = hexCharCodesToInt(str.charCodeAt(index), str.charCodeAt(index + 1));
    }
}
function hexStringEqualsUInt8(str, buf) {
    if (str.length !== buf.length * 2) {
        return false;
    }
    for (let i = 0; i < buf.length; i++) {
        const strIndex = i << 1;
        if (buf[i] !==
            hexCharCodesToInt(str.charCodeAt(strIndex), str.charCodeAt(strIndex + 1))) {
            return false;
        }
    }
    return true;
}
const alpha = "a".charCodeAt(0) - 10;
const digit = "0".charCodeAt(0);
function getDigestHex(tmpBuffer, input, hashLength) {
    let p = 0;
    for (let i = 0; i < hashLength; i++) {
        let nibble = input[i] >>> 4;
        tmpBuffer[p++] = nibble > 9 ? nibble + alpha : nibble + digit;
        nibble = input[i] & 0xf;
        tmpBuffer[p++] = nibble > 9 ? nibble + alpha : nibble + digit;
    }
    return String.fromCharCode.apply(null, tmpBuffer);
}
const getUInt8Buffer = nodeBuffer !== null
    ? (data) => {
        if (typeof data === "string") {
            const buf = nodeBuffer.from(data, "utf8");
            return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
        }
        if (nodeBuffer.isBuffer(data)) {
            return new Uint8Array(data.buffer, data.byteOffset, data.length);
        }
        if (ArrayBuffer.isView(data)) {
            return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        }
        throw new Error("Invalid data type!");
    }
    : (data) => {
        if (typeof data === "string") {
            return textEncoder.encode(data);
        }
        if (ArrayBuffer.isView(data)) {
            return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        }
        throw new Error("Invalid data type!");
    };
const base64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const base64Lookup = new Uint8Array(256);
for (let i = 0; i < base64Chars.length; i++) {
    base64Lookup[base64Chars.charCodeAt(i)] = i;
}
function encodeBase64(data, pad = true) {
    const len = data.length;
    const extraBytes = len % 3;
    const parts = [];
    const len2 = len - extraBytes;
    for (let i = 0; i < len2; i += 3) {
        const tmp = ((data[i] << 16) & 0xff0000) +
            ((data[i + 1] << 8) & 0xff00) +
            (data[i + 2] & 0xff);
        const triplet = base64Chars.charAt((tmp >> 18) & 0x3f) +
            base64Chars.charAt((tmp >> 12) & 0x3f) +
            base64Chars.charAt((tmp >> 6) & 0x3f) +
            base64Chars.charAt(tmp & 0x3f);
        parts.push(triplet);
    }
    if (extraBytes === 1) {
        const tmp = data[len - 1];
        const a = base64Chars.charAt(tmp >> 2);
        const b = base64Chars.charAt((tmp << 4) & 0x3f);
        parts.push(`${a}${b}`);
        if (pad) {
            parts.push("==");
        }
    }
    else if (extraBytes === 2) {
        const tmp = (data[len - 2] << 8) + data[len - 1];
        const a = base64Chars.charAt(tmp >> 10);
        const b = base64Chars.charAt((tmp >> 4) & 0x3f);
        const c = base64Chars.charAt((tmp << 2) & 0x3f);
        parts.push(`${a}${b}${c}`);
        if (pad) {
            parts.push("=");
        }
    }
    return parts.join("");
}
function getDecodeBase64Length(data) {
    let bufferLength = Math.floor(data.length * 0.75);
    const len = data.length;
    if (data[len - 1] === "=") {
        bufferLength -= 1;
        if (data[len - 2] === "=") {
            bufferLength -= 1;
        }
    }
    return bufferLength;
}
function decodeBase64(data) {
    const bufferLength = getDecodeBase64Length(data);
    const len = data.length;
    const bytes = new Uint8Array(bufferLength);
    let p = 0;
    for (let i = 0; i < len; i += 4) {
        const encoded1 = base64Lookup[data.charCodeAt(i)];
        const encoded2 = base64Lookup[data.charCodeAt(i + 1)];
        const encoded3 = base64Lookup[data.charCodeAt(i + 2)];
        const encoded4 = base64Lookup[data.charCodeAt(i + 3)];
        bytes[p] = (encoded1 << 2) | (encoded2 >> 4);
        p += 1;
        bytes[p] = ((encoded2 & 15) << 4) | (encoded3 >> 2);
        p += 1;
        bytes[p] = ((encoded3 & 3) << 6) | (encoded4 & 63);
        p += 1;
    }
    return bytes;
}

const MAX_HEAP = 16 * 1024;
const WASM_FUNC_HASH_LENGTH = 4;
const wasmMutex = new Mutex();
const wasmModuleCache = new Map();
function WASMInterface(binary, hashLength) {
    return __awaiter(this, void 0, void 0, function* () {
        let wasmInstance = null;
        let memoryView = null;
        let initialized = false;
        if (typeof WebAssembly === "undefined") {
            throw new Error("WebAssembly is not supported in this environment!");
        }
        const writeMemory = (data, offset = 0) => {
            memoryView.set(data, offset);
        };
        const getMemory = () => memoryView;
        const getExports = () => wasmInstance.exports;
        const setMemorySize = (totalSize) => {
            wasmInstance.exports.Hash_SetMemorySize(totalSize);
            const arrayOffset = wasmInstance.exports.Hash_GetBuffer();
            const memoryBuffer = wasmInstance.exports.memory.buffer;
            memoryView = new Uint8Array(memoryBuffer, arrayOffset, totalSize);
        };
        const getStateSize = () => {
            const view = new DataView(wasmInstance.exports.memory.buffer);
            const stateSize = view.getUint32(wasmInstance.exports.STATE_SIZE, true);
            return stateSize;
        };
        const loadWASMPromise = wasmMutex.dispatch(() => __awaiter(this, void 0, void 0, function* () {
            if (!wasmModuleCache.has(binary.name)) {
                const asm = decodeBase64(binary.data);
                // decodeBase64 allocates a complete, non-shared ArrayBuffer.
                const promise = WebAssembly.compile(asm.buffer);
                wasmModuleCache.set(binary.name, promise);
            }
            const module = yield wasmModuleCache.get(binary.name);
            wasmInstance = yield WebAssembly.instantiate(module, {
            // env: {
            //   emscripten_memcpy_big: (dest, src, num) => {
            //     const memoryBuffer = wasmInstance.exports.memory.buffer;
            //     const memView = new Uint8Array(memoryBuffer, 0);
            //     memView.set(memView.subarray(src, src + num), dest);
            //   },
            //   print_memory: (offset, len) => {
            //     const memoryBuffer = wasmInstance.exports.memory.buffer;
            //     const memView = new Uint8Array(memoryBuffer, 0);
            //     console.log('print_int32', memView.subarray(offset, offset + len));
            //   },
            // },
            });
            // wasmInstance.exports._start();
        }));
        const setupInterface = () => __awaiter(this, void 0, void 0, function* () {
            if (!wasmInstance) {
                yield loadWASMPromise;
            }
            const arrayOffset = wasmInstance.exports.Hash_GetBuffer();
            const memoryBuffer = wasmInstance.exports.memory.buffer;
            memoryView = new Uint8Array(memoryBuffer, arrayOffset, MAX_HEAP);
        });
        const init = (bits = null) => {
            initialized = true;
            wasmInstance.exports.Hash_Init(bits);
        };
        const updateUInt8Array = (data) => {
            let read = 0;
            while (read < data.length) {
                const chunk = data.subarray(read, read + MAX_HEAP);
                read += chunk.length;
                memoryView.set(chunk);
                wasmInstance.exports.Hash_Update(chunk.length);
            }
        };
        const update = (data) => {
            if (!initialized) {
                throw new Error("update() called before init()");
            }
            const Uint8Buffer = getUInt8Buffer(data);
            updateUInt8Array(Uint8Buffer);
        };
        const digestChars = new Uint8Array(hashLength * 2);
        const digest = (outputType, padding = null) => {
            if (!initialized) {
                throw new Error("digest() called before init()");
            }
            initialized = false;
            wasmInstance.exports.Hash_Final(padding);
            if (outputType === "binary") {
                // the data is copied to allow GC of the original memory object
                return memoryView.slice(0, hashLength);
            }
            return getDigestHex(digestChars, memoryView, hashLength);
        };
        const save = () => {
            if (!initialized) {
                throw new Error("save() can only be called after init() and before digest()");
            }
            const stateOffset = wasmInstance.exports.Hash_GetState();
            const stateLength = getStateSize();
            const memoryBuffer = wasmInstance.exports.memory.buffer;
            const internalState = new Uint8Array(memoryBuffer, stateOffset, stateLength);
            // prefix is 4 bytes from SHA1 hash of the WASM binary
            // it is used to detect incompatible internal states between different versions of hash-wasm
            const prefixedState = new Uint8Array(WASM_FUNC_HASH_LENGTH + stateLength);
            writeHexToUInt8(prefixedState, binary.hash);
            prefixedState.set(internalState, WASM_FUNC_HASH_LENGTH);
            return prefixedState;
        };
        const load = (state) => {
            if (!(state instanceof Uint8Array)) {
                throw new Error("load() expects an Uint8Array generated by save()");
            }
            const stateOffset = wasmInstance.exports.Hash_GetState();
            const stateLength = getStateSize();
            const overallLength = WASM_FUNC_HASH_LENGTH + stateLength;
            const memoryBuffer = wasmInstance.exports.memory.buffer;
            if (state.length !== overallLength) {
                throw new Error(`Bad state length (expected ${overallLength} bytes, got ${state.length})`);
            }
            if (!hexStringEqualsUInt8(binary.hash, state.subarray(0, WASM_FUNC_HASH_LENGTH))) {
                throw new Error("This state was written by an incompatible hash implementation");
            }
            const internalState = state.subarray(WASM_FUNC_HASH_LENGTH);
            new Uint8Array(memoryBuffer, stateOffset, stateLength).set(internalState);
            initialized = true;
        };
        const isDataShort = (data) => {
            if (typeof data === "string") {
                // worst case is 4 bytes / char
                return data.length < MAX_HEAP / 4;
            }
            return data.byteLength < MAX_HEAP;
        };
        let canSimplify = isDataShort;
        switch (binary.name) {
            case "argon2":
            case "scrypt":
                canSimplify = () => true;
                break;
            case "blake2b":
            case "blake2s":
                // if there is a key at blake2 then cannot simplify
                canSimplify = (data, initParam) => initParam <= 512 && isDataShort(data);
                break;
            case "blake3":
                // if there is a key at blake3 then cannot simplify
                canSimplify = (data, initParam) => initParam === 0 && isDataShort(data);
                break;
            case "xxhash64": // cannot simplify
            case "xxhash3":
            case "xxhash128":
            case "crc64":
                canSimplify = () => false;
                break;
        }
        // shorthand for (init + update + digest) for better performance
        const calculate = (data, initParam = null, digestParam = null) => {
            if (!canSimplify(data, initParam)) {
                init(initParam);
                update(data);
                return digest("hex", digestParam);
            }
            const buffer = getUInt8Buffer(data);
            memoryView.set(buffer);
            wasmInstance.exports.Hash_Calculate(buffer.length, initParam, digestParam);
            return getDigestHex(digestChars, memoryView, hashLength);
        };
        yield setupInterface();
        return {
            getMemory,
            writeMemory,
            getExports,
            setMemorySize,
            init,
            update,
            digest,
            save,
            load,
            calculate,
            hashLength,
        };
    });
}

function lockedCreate(mutex, binary, hashLength) {
    return __awaiter(this, void 0, void 0, function* () {
        const unlock = yield mutex.lock();
        const wasm = yield WASMInterface(binary, hashLength);
        unlock();
        return wasm;
    });
}

const mutex$l = new Mutex();
let wasmCache$l = null;
/**
 * Calculates Adler-32 hash. The resulting 32-bit hash is stored in
 * network byte order (big-endian).
 *
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function adler32(data) {
    if (wasmCache$l === null) {
        return lockedCreate(mutex$l, wasmJson$l, 4).then((wasm) => {
            wasmCache$l = wasm;
            return wasmCache$l.calculate(data);
        });
    }
    try {
        const hash = wasmCache$l.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new Adler-32 hash instance
 */
function createAdler32() {
    return WASMInterface(wasmJson$l, 4).then((wasm) => {
        wasm.init();
        const obj = {
            init: () => {
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 4,
            digestSize: 4,
        };
        return obj;
    });
}

var name$k = "argon2";
var data$k = "AGFzbQEAAAABKQVgAX8Bf2AAAX9gEH9/f39/f39/f39/f39/f38AYAR/f39/AGACf38AAwYFAAECAwQFBgEBAoCAAgYIAX8BQYCABAsHUwUGbWVtb3J5AgAPX19zdGFja19wb2ludGVyAwASSGFzaF9TZXRNZW1vcnlTaXplAAAOSGFzaF9HZXRCdWZmZXIAAQ5IYXNoX0NhbGN1bGF0ZQAECsc2BV0DAX8BfgF/QQAhAQJAIABBACkDiIAEIgKnIgNGDQBBACEBAkAgACADayIAQRB2IABB//8DcUEAR2oiAEAAQX9HDQBB/wHADwtBACACIABBEHStfDcDiIAECyABwAt0AwJ/AX4BfwJAQQAoAoCABCIADQBBAD8AQRB0IgE2AoCABAJAQQApA4iABCICpyIDQYCAIEYNAEEAIQBBgIAgIANrIgNBEHYgA0H//wNxQQBHaiIDQABBf0YNAUEAIAIgA0EQdK18NwOIgAQLIAEhAAsgAAvcDgECfiAAIAQpAwAiECAAKQMAIhF8IBFCAYZC/v///x+DIBBC/////w+DfnwiEDcDACAMIBAgDCkDAIVCIIkiEDcDACAIIBAgCCkDACIRfCARQgGGQv7///8fgyAQQv////8Pg358IhA3AwAgBCAQIAQpAwCFQiiJIhA3AwAgACAQIAApAwAiEXwgEEL/////D4MgEUIBhkL+////H4N+fCIQNwMAIAwgECAMKQMAhUIwiSIQNwMAIAggECAIKQMAIhF8IBBC/////w+DIBFCAYZC/v///x+DfnwiEDcDACAEIBAgBCkDAIVCAYk3AwAgASAFKQMAIhAgASkDACIRfCARQgGGQv7///8fgyAQQv////8Pg358IhA3AwAgDSAQIA0pAwCFQiCJIhA3AwAgCSAQIAkpAwAiEXwgEUIBhkL+////H4MgEEL/////D4N+fCIQNwMAIAUgECAFKQMAhUIoiSIQNwMAIAEgECABKQMAIhF8IBBC/////w+DIBFCAYZC/v///x+DfnwiEDcDACANIBAgDSkDAIVCMIkiEDcDACAJIBAgCSkDACIRfCAQQv////8PgyARQgGGQv7///8fg358IhA3AwAgBSAQIAUpAwCFQgGJNwMAIAIgBikDACIQIAIpAwAiEXwgEUIBhkL+////H4MgEEL/////D4N+fCIQNwMAIA4gECAOKQMAhUIgiSIQNwMAIAogECAKKQMAIhF8IBFCAYZC/v///x+DIBBC/////w+DfnwiEDcDACAGIBAgBikDAIVCKIkiEDcDACACIBAgAikDACIRfCAQQv////8PgyARQgGGQv7///8fg358IhA3AwAgDiAQIA4pAwCFQjCJIhA3AwAgCiAQIAopAwAiEXwgEEL/////D4MgEUIBhkL+////H4N+fCIQNwMAIAYgECAGKQMAhUIBiTcDACADIAcpAwAiECADKQMAIhF8IBFCAYZC/v///x+DIBBC/////w+DfnwiEDcDACAPIBAgDykDAIVCIIkiEDcDACALIBAgCykDACIRfCARQgGGQv7///8fgyAQQv////8Pg358IhA3AwAgByAQIAcpAwCFQiiJIhA3AwAgAyAQIAMpAwAiEXwgEEL/////D4MgEUIBhkL+////H4N+fCIQNwMAIA8gECAPKQMAhUIwiSIQNwMAIAsgECALKQMAIhF8IBBC/////w+DIBFCAYZC/v///x+DfnwiEDcDACAHIBAgBykDAIVCAYk3AwAgACAFKQMAIhAgACkDACIRfCARQgGGQv7///8fgyAQQv////8Pg358IhA3AwAgDyAQIA8pAwCFQiCJIhA3AwAgCiAQIAopAwAiEXwgEUIBhkL+////H4MgEEL/////D4N+fCIQNwMAIAUgECAFKQMAhUIoiSIQNwMAIAAgECAAKQMAIhF8IBBC/////w+DIBFCAYZC/v///x+DfnwiEDcDACAPIBAgDykDAIVCMIkiEDcDACAKIBAgCikDACIRfCAQQv////8PgyARQgGGQv7///8fg358IhA3AwAgBSAQIAUpAwCFQgGJNwMAIAEgBikDACIQIAEpAwAiEXwgEUIBhkL+////H4MgEEL/////D4N+fCIQNwMAIAwgECAMKQMAhUIgiSIQNwMAIAsgECALKQMAIhF8IBFCAYZC/v///x+DIBBC/////w+DfnwiEDcDACAGIBAgBikDAIVCKIkiEDcDACABIBAgASkDACIRfCAQQv////8PgyARQgGGQv7///8fg358IhA3AwAgDCAQIAwpAwCFQjCJIhA3AwAgCyAQIAspAwAiEXwgEEL/////D4MgEUIBhkL+////H4N+fCIQNwMAIAYgECAGKQMAhUIBiTcDACACIAcpAwAiECACKQMAIhF8IBFCAYZC/v///x+DIBBC/////w+DfnwiEDcDACANIBAgDSkDAIVCIIkiEDcDACAIIBAgCCkDACIRfCARQgGGQv7///8fgyAQQv////8Pg358IhA3AwAgByAQIAcpAwCFQiiJIhA3AwAgAiAQIAIpAwAiEXwgEEL/////D4MgEUIBhkL+////H4N+fCIQNwMAIA0gECANKQMAhUIwiSIQNwMAIAggECAIKQMAIhF8IBBC/////w+DIBFCAYZC/v///x+DfnwiEDcDACAHIBAgBykDAIVCAYk3AwAgAyAEKQMAIhAgAykDACIRfCARQgGGQv7///8fgyAQQv////8Pg358IhA3AwAgDiAQIA4pAwCFQiCJIhA3AwAgCSAQIAkpAwAiEXwgEUIBhkL+////H4MgEEL/////D4N+fCIQNwMAIAQgECAEKQMAhUIoiSIQNwMAIAMgECADKQMAIhF8IBBC/////w+DIBFCAYZC/v///x+DfnwiEDcDACAOIBAgDikDAIVCMIkiEDcDACAJIBAgCSkDACIRfCAQQv////8PgyARQgGGQv7///8fg358IhA3AwAgBCAQIAQpAwCFQgGJNwMAC+MdAQN/QQAhBEEAIAIpAwAgASkDAIU3A5CABEEAIAIpAwggASkDCIU3A5iABEEAIAIpAxAgASkDEIU3A6CABEEAIAIpAxggASkDGIU3A6iABEEAIAIpAyAgASkDIIU3A7CABEEAIAIpAyggASkDKIU3A7iABEEAIAIpAzAgASkDMIU3A8CABEEAIAIpAzggASkDOIU3A8iABEEAIAIpA0AgASkDQIU3A9CABEEAIAIpA0ggASkDSIU3A9iABEEAIAIpA1AgASkDUIU3A+CABEEAIAIpA1ggASkDWIU3A+iABEEAIAIpA2AgASkDYIU3A/CABEEAIAIpA2ggASkDaIU3A/iABEEAIAIpA3AgASkDcIU3A4CBBEEAIAIpA3ggASkDeIU3A4iBBEEAIAIpA4ABIAEpA4ABhTcDkIEEQQAgAikDiAEgASkDiAGFNwOYgQRBACACKQOQASABKQOQAYU3A6CBBEEAIAIpA5gBIAEpA5gBhTcDqIEEQQAgAikDoAEgASkDoAGFNwOwgQRBACACKQOoASABKQOoAYU3A7iBBEEAIAIpA7ABIAEpA7ABhTcDwIEEQQAgAikDuAEgASkDuAGFNwPIgQRBACACKQPAASABKQPAAYU3A9CBBEEAIAIpA8gBIAEpA8gBhTcD2IEEQQAgAikD0AEgASkD0AGFNwPggQRBACACKQPYASABKQPYAYU3A+iBBEEAIAIpA+ABIAEpA+ABhTcD8IEEQQAgAikD6AEgASkD6AGFNwP4gQRBACACKQPwASABKQPwAYU3A4CCBEEAIAIpA/gBIAEpA/gBhTcDiIIEQQAgAikDgAIgASkDgAKFNwOQggRBACACKQOIAiABKQOIAoU3A5iCBEEAIAIpA5ACIAEpA5AChTcDoIIEQQAgAikDmAIgASkDmAKFNwOoggRBACACKQOgAiABKQOgAoU3A7CCBEEAIAIpA6gCIAEpA6gChTcDuIIEQQAgAikDsAIgASkDsAKFNwPAggRBACACKQO4AiABKQO4AoU3A8iCBEEAIAIpA8ACIAEpA8AChTcD0IIEQQAgAikDyAIgASkDyAKFNwPYggRBACACKQPQAiABKQPQAoU3A+CCBEEAIAIpA9gCIAEpA9gChTcD6IIEQQAgAikD4AIgASkD4AKFNwPwggRBACACKQPoAiABKQPoAoU3A/iCBEEAIAIpA/ACIAEpA/AChTcDgIMEQQAgAikD+AIgASkD+AKFNwOIgwRBACACKQOAAyABKQOAA4U3A5CDBEEAIAIpA4gDIAEpA4gDhTcDmIMEQQAgAikDkAMgASkDkAOFNwOggwRBACACKQOYAyABKQOYA4U3A6iDBEEAIAIpA6ADIAEpA6ADhTcDsIMEQQAgAikDqAMgASkDqAOFNwO4gwRBACACKQOwAyABKQOwA4U3A8CDBEEAIAIpA7gDIAEpA7gDhTcDyIMEQQAgAikDwAMgASkDwAOFNwPQgwRBACACKQPIAyABKQPIA4U3A9iDBEEAIAIpA9ADIAEpA9ADhTcD4IMEQQAgAikD2AMgASkD2AOFNwPogwRBACACKQPgAyABKQPgA4U3A/CDBEEAIAIpA+gDIAEpA+gDhTcD+IMEQQAgAikD8AMgASkD8AOFNwOAhARBACACKQP4AyABKQP4A4U3A4iEBEEAIAIpA4AEIAEpA4AEhTcDkIQEQQAgAikDiAQgASkDiASFNwOYhARBACACKQOQBCABKQOQBIU3A6CEBEEAIAIpA5gEIAEpA5gEhTcDqIQEQQAgAikDoAQgASkDoASFNwOwhARBACACKQOoBCABKQOoBIU3A7iEBEEAIAIpA7AEIAEpA7AEhTcDwIQEQQAgAikDuAQgASkDuASFNwPIhARBACACKQPABCABKQPABIU3A9CEBEEAIAIpA8gEIAEpA8gEhTcD2IQEQQAgAikD0AQgASkD0ASFNwPghARBACACKQPYBCABKQPYBIU3A+iEBEEAIAIpA+AEIAEpA+AEhTcD8IQEQQAgAikD6AQgASkD6ASFNwP4hARBACACKQPwBCABKQPwBIU3A4CFBEEAIAIpA/gEIAEpA/gEhTcDiIUEQQAgAikDgAUgASkDgAWFNwOQhQRBACACKQOIBSABKQOIBYU3A5iFBEEAIAIpA5AFIAEpA5AFhTcDoIUEQQAgAikDmAUgASkDmAWFNwOohQRBACACKQOgBSABKQOgBYU3A7CFBEEAIAIpA6gFIAEpA6gFhTcDuIUEQQAgAikDsAUgASkDsAWFNwPAhQRBACACKQO4BSABKQO4BYU3A8iFBEEAIAIpA8AFIAEpA8AFhTcD0IUEQQAgAikDyAUgASkDyAWFNwPYhQRBACACKQPQBSABKQPQBYU3A+CFBEEAIAIpA9gFIAEpA9gFhTcD6IUEQQAgAikD4AUgASkD4AWFNwPwhQRBACACKQPoBSABKQPoBYU3A/iFBEEAIAIpA/AFIAEpA/AFhTcDgIYEQQAgAikD+AUgASkD+AWFNwOIhgRBACACKQOABiABKQOABoU3A5CGBEEAIAIpA4gGIAEpA4gGhTcDmIYEQQAgAikDkAYgASkDkAaFNwOghgRBACACKQOYBiABKQOYBoU3A6iGBEEAIAIpA6AGIAEpA6AGhTcDsIYEQQAgAikDqAYgASkDqAaFNwO4hgRBACACKQOwBiABKQOwBoU3A8CGBEEAIAIpA7gGIAEpA7gGhTcDyIYEQQAgAikDwAYgASkDwAaFNwPQhgRBACACKQPIBiABKQPIBoU3A9iGBEEAIAIpA9AGIAEpA9AGhTcD4IYEQQAgAikD2AYgASkD2AaFNwPohgRBACACKQPgBiABKQPgBoU3A/CGBEEAIAIpA+gGIAEpA+gGhTcD+IYEQQAgAikD8AYgASkD8AaFNwOAhwRBACACKQP4BiABKQP4BoU3A4iHBEEAIAIpA4AHIAEpA4AHhTcDkIcEQQAgAikDiAcgASkDiAeFNwOYhwRBACACKQOQByABKQOQB4U3A6CHBEEAIAIpA5gHIAEpA5gHhTcDqIcEQQAgAikDoAcgASkDoAeFNwOwhwRBACACKQOoByABKQOoB4U3A7iHBEEAIAIpA7AHIAEpA7AHhTcDwIcEQQAgAikDuAcgASkDuAeFNwPIhwRBACACKQPAByABKQPAB4U3A9CHBEEAIAIpA8gHIAEpA8gHhTcD2IcEQQAgAikD0AcgASkD0AeFNwPghwRBACACKQPYByABKQPYB4U3A+iHBEEAIAIpA+AHIAEpA+AHhTcD8IcEQQAgAikD6AcgASkD6AeFNwP4hwRBACACKQPwByABKQPwB4U3A4CIBEEAIAIpA/gHIAEpA/gHhTcDiIgEQZCABEGYgARBoIAEQaiABEGwgARBuIAEQcCABEHIgARB0IAEQdiABEHggARB6IAEQfCABEH4gARBgIEEQYiBBBACQZCBBEGYgQRBoIEEQaiBBEGwgQRBuIEEQcCBBEHIgQRB0IEEQdiBBEHggQRB6IEEQfCBBEH4gQRBgIIEQYiCBBACQZCCBEGYggRBoIIEQaiCBEGwggRBuIIEQcCCBEHIggRB0IIEQdiCBEHgggRB6IIEQfCCBEH4ggRBgIMEQYiDBBACQZCDBEGYgwRBoIMEQaiDBEGwgwRBuIMEQcCDBEHIgwRB0IMEQdiDBEHggwRB6IMEQfCDBEH4gwRBgIQEQYiEBBACQZCEBEGYhARBoIQEQaiEBEGwhARBuIQEQcCEBEHIhARB0IQEQdiEBEHghARB6IQEQfCEBEH4hARBgIUEQYiFBBACQZCFBEGYhQRBoIUEQaiFBEGwhQRBuIUEQcCFBEHIhQRB0IUEQdiFBEHghQRB6IUEQfCFBEH4hQRBgIYEQYiGBBACQZCGBEGYhgRBoIYEQaiGBEGwhgRBuIYEQcCGBEHIhgRB0IYEQdiGBEHghgRB6IYEQfCGBEH4hgRBgIcEQYiHBBACQZCHBEGYhwRBoIcEQaiHBEGwhwRBuIcEQcCHBEHIhwRB0IcEQdiHBEHghwRB6IcEQfCHBEH4hwRBgIgEQYiIBBACQZCABEGYgARBkIEEQZiBBEGQggRBmIIEQZCDBEGYgwRBkIQEQZiEBEGQhQRBmIUEQZCGBEGYhgRBkIcEQZiHBBACQaCABEGogARBoIEEQaiBBEGgggRBqIIEQaCDBEGogwRBoIQEQaiEBEGghQRBqIUEQaCGBEGohgRBoIcEQaiHBBACQbCABEG4gARBsIEEQbiBBEGwggRBuIIEQbCDBEG4gwRBsIQEQbiEBEGwhQRBuIUEQbCGBEG4hgRBsIcEQbiHBBACQcCABEHIgARBwIEEQciBBEHAggRByIIEQcCDBEHIgwRBwIQEQciEBEHAhQRByIUEQcCGBEHIhgRBwIcEQciHBBACQdCABEHYgARB0IEEQdiBBEHQggRB2IIEQdCDBEHYgwRB0IQEQdiEBEHQhQRB2IUEQdCGBEHYhgRB0IcEQdiHBBACQeCABEHogARB4IEEQeiBBEHgggRB6IIEQeCDBEHogwRB4IQEQeiEBEHghQRB6IUEQeCGBEHohgRB4IcEQeiHBBACQfCABEH4gARB8IEEQfiBBEHwggRB+IIEQfCDBEH4gwRB8IQEQfiEBEHwhQRB+IUEQfCGBEH4hgRB8IcEQfiHBBACQYCBBEGIgQRBgIIEQYiCBEGAgwRBiIMEQYCEBEGIhARBgIUEQYiFBEGAhgRBiIYEQYCHBEGIhwRBgIgEQYiIBBACAkACQCADRQ0AA0AgACAEaiIDIAIgBGoiBSkDACABIARqIgYpAwCFIARBkIAEaikDAIUgAykDAIU3AwAgA0EIaiIDIAVBCGopAwAgBkEIaikDAIUgBEGYgARqKQMAhSADKQMAhTcDACAEQRBqIgRBgAhHDQAMAgsLQQAhBANAIAAgBGoiAyACIARqIgUpAwAgASAEaiIGKQMAhSAEQZCABGopAwCFNwMAIANBCGogBUEIaikDACAGQQhqKQMAhSAEQZiABGopAwCFNwMAIARBEGoiBEGACEcNAAsLC64IDAV/AX4EfwJ+An8BfgN/AX4GfwF+A38BfgJAQQAoAoCABCICIAFBCnRqIgMoAgggAUcNACADKAIMIQQgAygCACEFQQAgAygCFCIGrTcDuIgEQQAgBK0iBzcDsIgEQQAgBSABIAVBAnRuIghsIglBAnStNwOoiAQCQAJAAkACQCAERQ0AQX8hCiAFRQ0BIAhBA2whCyAIQQJ0IgStIQwgBa0hDSAGQQJGIQ4gBkF/akECSSEPQgAhEANAQQAgEDcDkIgEIA4gEFAiEXEhEiAQpyETQgAhFEEAIQEDQEEAIBQ3A6CIBCAGQQFGIBIgFEICVHFyIRUgECAUhFAiAyAPcSEWQQJBACADGyEXQX8gAUEBakEDcSAIbEF/aiARGyEYIAEgE3IhGSABIAhsIRpCACEbA0BBAEIANwPAiARBACAbNwOYiAQgFyEBAkAgFkUNAEEAQgE3A8CIBEGQkARBkIgEQZCYBEEAEANBkJAEQZCQBEGQmARBABADQQIhAQsCQCABIAhPDQAgBCAbpyIKbCAaaiABaiEDA0AgA0EAIAQgARtBACAUUCIcG2pBf2ohHQJAAkAgFQ0AIAIgHUEKdCIdaiEeDAELAkAgAUH/AHEiHg0AQQBBACkDwIgEQgF8NwPAiARBkJAEQZCIBEGQmARBABADQZCQBEGQkARBkJgEQQAQAwsgHUEKdCEdIB5BA3RBkJAEaiEeCyACIANBCnRqIAIgHWogAiAeKQMAIh9CIIinIAVwIAogGRsiHSAEbCABIAFBACAbIB2tUSIdGyIeIBwbIBpqIB4gC2ogERsgAUUgHXJrIhwgGGqtIB9C/////w+DIh8gH35CIIggHK1+QiCIfSAMgqdqQQp0akEBEAMgA0EBaiEDIAFBAWoiASAISQ0ACwsgG0IBfCIbIA1SDQALIBRCAXwiFKchASAUQgRSDQALIBBCAXwiECAHUg0ACwsgCUEMdEGAeGohFSAFQX9qIgpFDQIMAQtBAEIDNwOgiARBACAEQX9qrTcDkIgEQYB4IRULIAIgFWohGiAIQQx0IRFBACEIA0AgAiARIAhBAWoiCGxqQYB4aiEeQXghBEEAIRwDQCAaIARqIgFBCGoiAyADKQMAIB4gHGoiAykDAIU3AwAgAUEQaiIdIB0pAwAgA0EIaikDAIU3AwAgAUEYaiIdIB0pAwAgA0EQaikDAIU3AwAgAUEgaiIBIAEpAwAgA0EYaikDAIU3AwAgHEEgaiEcIARBIGoiBEH4B0kNAAsgCCAKRw0ACwsgAiAVaiEcQXghAQNAIAIgAWoiA0EIaiAcIAFqIgRBCGopAwA3AwAgBEEQaikDACEfIARBGGopAwAhGyADQSBqIARBIGopAwA3AwAgA0EYaiAbNwMAIANBEGogHzcDACABQSBqIgFB+AdJDQALCws=";
var hash$k = "2b50b0d6";
var wasmJson$k = {
	name: name$k,
	data: data$k,
	hash: hash$k
};

var name$j = "blake2b";
var data$j = "AGFzbQEAAAABEQRgAAF/YAJ/fwBgAX8AYAAAAwoJAAECAwECAgABBQQBAQICBg8CfwFBgIAEC38AQYCABAsHggEJBm1lbW9yeQIAD19fc3RhY2tfcG9pbnRlcgMADkhhc2hfR2V0QnVmZmVyAAAKSGFzaF9GaW5hbAADCUhhc2hfSW5pdAAFC0hhc2hfVXBkYXRlAAYNSGFzaF9HZXRTdGF0ZQAHDkhhc2hfQ2FsY3VsYXRlAAgKU1RBVEVfU0laRQMBCsU4CQYAQYCBBAvcAgIFfwF+AkAgAUEBSA0AAkAgAUGAAUEAKALgggUiAmsiA0wNAEEAQQA2AuCCBQJAIAJB/wBKDQAgAkHggQVqIQQgACEFQQAhBgNAIAQgBS0AADoAACAFQQFqIQUgBEEBaiEEIAMgBkEBaiIGQf8BcUoNAAsLQQBBACkDwIEFIgdCgAF8NwPAgQVBAEEAKQPIgQUgB0L/flatfDcDyIEFQeCBBRACIAAgA2ohAAJAIAEgA2siBEGBAU4NACAEIQEMAQsgAiABaiEEA0BBAEEAKQPAgQUiB0KAAXw3A8CBBUEAQQApA8iBBSAHQv9+Vq18NwPIgQUgABACIABBgAFqIQAgBEGAf2oiBEGAAksNAAsgBEGAf2ohAQtBACEEA0AgBEEAKALgggVqQeCBBWogACAEai0AADoAACABIARBAWoiBEH/AXFLDQALQQBBACgC4IIFIAFqNgLgggULC78uASR+QQBBACkD0IEFQQApA7CBBSIBQQApA5CBBXwgACkDICICfCIDhULr+obav7X2wR+FQiCJIgRCq/DT9K/uvLc8fCIFIAGFQiiJIgYgA3wgACkDKCIBfCIHIASFQjCJIgggBXwiCSAGhUIBiSIKQQApA8iBBUEAKQOogQUiBEEAKQOIgQV8IAApAxAiA3wiBYVCn9j52cKR2oKbf4VCIIkiC0K7zqqm2NDrs7t/fCIMIASFQiiJIg0gBXwgACkDGCIEfCIOfCAAKQNQIgV8Ig9BACkDwIEFQQApA6CBBSIQQQApA4CBBSIRfCAAKQMAIgZ8IhKFQtGFmu/6z5SH0QCFQiCJIhNCiJLznf/M+YTqAHwiFCAQhUIoiSIVIBJ8IAApAwgiEHwiFiAThUIwiSIXhUIgiSIYQQApA9iBBUEAKQO4gQUiE0EAKQOYgQV8IAApAzAiEnwiGYVC+cL4m5Gjs/DbAIVCIIkiGkLx7fT4paf9p6V/fCIbIBOFQiiJIhwgGXwgACkDOCITfCIZIBqFQjCJIhogG3wiG3wiHSAKhUIoiSIeIA98IAApA1giCnwiDyAYhUIwiSIYIB18Ih0gDiALhUIwiSIOIAx8Ih8gDYVCAYkiDCAWfCAAKQNAIgt8Ig0gGoVCIIkiFiAJfCIaIAyFQiiJIiAgDXwgACkDSCIJfCIhIBaFQjCJIhYgGyAchUIBiSIMIAd8IAApA2AiB3wiDSAOhUIgiSIOIBcgFHwiFHwiFyAMhUIoiSIbIA18IAApA2giDHwiHCAOhUIwiSIOIBd8IhcgG4VCAYkiGyAZIBQgFYVCAYkiFHwgACkDcCINfCIVIAiFQiCJIhkgH3wiHyAUhUIoiSIUIBV8IAApA3giCHwiFXwgDHwiIoVCIIkiI3wiJCAbhUIoiSIbICJ8IBJ8IiIgFyAYIBUgGYVCMIkiFSAffCIZIBSFQgGJIhQgIXwgDXwiH4VCIIkiGHwiFyAUhUIoiSIUIB98IAV8Ih8gGIVCMIkiGCAXfCIXIBSFQgGJIhR8IAF8IiEgFiAafCIWIBUgHSAehUIBiSIaIBx8IAl8IhyFQiCJIhV8Ih0gGoVCKIkiGiAcfCAIfCIcIBWFQjCJIhWFQiCJIh4gGSAOIBYgIIVCAYkiFiAPfCACfCIPhUIgiSIOfCIZIBaFQiiJIhYgD3wgC3wiDyAOhUIwiSIOIBl8Ihl8IiAgFIVCKIkiFCAhfCAEfCIhIB6FQjCJIh4gIHwiICAiICOFQjCJIiIgJHwiIyAbhUIBiSIbIBx8IAp8IhwgDoVCIIkiDiAXfCIXIBuFQiiJIhsgHHwgE3wiHCAOhUIwiSIOIBkgFoVCAYkiFiAffCAQfCIZICKFQiCJIh8gFSAdfCIVfCIdIBaFQiiJIhYgGXwgB3wiGSAfhUIwiSIfIB18Ih0gFoVCAYkiFiAVIBqFQgGJIhUgD3wgBnwiDyAYhUIgiSIYICN8IhogFYVCKIkiFSAPfCADfCIPfCAHfCIihUIgiSIjfCIkIBaFQiiJIhYgInwgBnwiIiAjhUIwiSIjICR8IiQgFoVCAYkiFiAOIBd8Ig4gDyAYhUIwiSIPICAgFIVCAYkiFCAZfCAKfCIXhUIgiSIYfCIZIBSFQiiJIhQgF3wgC3wiF3wgBXwiICAPIBp8Ig8gHyAOIBuFQgGJIg4gIXwgCHwiGoVCIIkiG3wiHyAOhUIoiSIOIBp8IAx8IhogG4VCMIkiG4VCIIkiISAdIB4gDyAVhUIBiSIPIBx8IAF8IhWFQiCJIhx8Ih0gD4VCKIkiDyAVfCADfCIVIByFQjCJIhwgHXwiHXwiHiAWhUIoiSIWICB8IA18IiAgIYVCMIkiISAefCIeIBogFyAYhUIwiSIXIBl8IhggFIVCAYkiFHwgCXwiGSAchUIgiSIaICR8IhwgFIVCKIkiFCAZfCACfCIZIBqFQjCJIhogHSAPhUIBiSIPICJ8IAR8Ih0gF4VCIIkiFyAbIB98Iht8Ih8gD4VCKIkiDyAdfCASfCIdIBeFQjCJIhcgH3wiHyAPhUIBiSIPIBsgDoVCAYkiDiAVfCATfCIVICOFQiCJIhsgGHwiGCAOhUIoiSIOIBV8IBB8IhV8IAx8IiKFQiCJIiN8IiQgD4VCKIkiDyAifCAHfCIiICOFQjCJIiMgJHwiJCAPhUIBiSIPIBogHHwiGiAVIBuFQjCJIhUgHiAWhUIBiSIWIB18IAR8IhuFQiCJIhx8Ih0gFoVCKIkiFiAbfCAQfCIbfCABfCIeIBUgGHwiFSAXIBogFIVCAYkiFCAgfCATfCIYhUIgiSIXfCIaIBSFQiiJIhQgGHwgCXwiGCAXhUIwiSIXhUIgiSIgIB8gISAVIA6FQgGJIg4gGXwgCnwiFYVCIIkiGXwiHyAOhUIoiSIOIBV8IA18IhUgGYVCMIkiGSAffCIffCIhIA+FQiiJIg8gHnwgBXwiHiAghUIwiSIgICF8IiEgGyAchUIwiSIbIB18IhwgFoVCAYkiFiAYfCADfCIYIBmFQiCJIhkgJHwiHSAWhUIoiSIWIBh8IBJ8IhggGYVCMIkiGSAfIA6FQgGJIg4gInwgAnwiHyAbhUIgiSIbIBcgGnwiF3wiGiAOhUIoiSIOIB98IAZ8Ih8gG4VCMIkiGyAafCIaIA6FQgGJIg4gFSAXIBSFQgGJIhR8IAh8IhUgI4VCIIkiFyAcfCIcIBSFQiiJIhQgFXwgC3wiFXwgBXwiIoVCIIkiI3wiJCAOhUIoiSIOICJ8IAh8IiIgGiAgIBUgF4VCMIkiFSAcfCIXIBSFQgGJIhQgGHwgCXwiGIVCIIkiHHwiGiAUhUIoiSIUIBh8IAZ8IhggHIVCMIkiHCAafCIaIBSFQgGJIhR8IAR8IiAgGSAdfCIZIBUgISAPhUIBiSIPIB98IAN8Ih2FQiCJIhV8Ih8gD4VCKIkiDyAdfCACfCIdIBWFQjCJIhWFQiCJIiEgFyAbIBkgFoVCAYkiFiAefCABfCIZhUIgiSIbfCIXIBaFQiiJIhYgGXwgE3wiGSAbhUIwiSIbIBd8Ihd8Ih4gFIVCKIkiFCAgfCAMfCIgICGFQjCJIiEgHnwiHiAiICOFQjCJIiIgJHwiIyAOhUIBiSIOIB18IBJ8Ih0gG4VCIIkiGyAafCIaIA6FQiiJIg4gHXwgC3wiHSAbhUIwiSIbIBcgFoVCAYkiFiAYfCANfCIXICKFQiCJIhggFSAffCIVfCIfIBaFQiiJIhYgF3wgEHwiFyAYhUIwiSIYIB98Ih8gFoVCAYkiFiAVIA+FQgGJIg8gGXwgCnwiFSAchUIgiSIZICN8IhwgD4VCKIkiDyAVfCAHfCIVfCASfCIihUIgiSIjfCIkIBaFQiiJIhYgInwgBXwiIiAjhUIwiSIjICR8IiQgFoVCAYkiFiAbIBp8IhogFSAZhUIwiSIVIB4gFIVCAYkiFCAXfCADfCIXhUIgiSIZfCIbIBSFQiiJIhQgF3wgB3wiF3wgAnwiHiAVIBx8IhUgGCAaIA6FQgGJIg4gIHwgC3wiGoVCIIkiGHwiHCAOhUIoiSIOIBp8IAR8IhogGIVCMIkiGIVCIIkiICAfICEgFSAPhUIBiSIPIB18IAZ8IhWFQiCJIh18Ih8gD4VCKIkiDyAVfCAKfCIVIB2FQjCJIh0gH3wiH3wiISAWhUIoiSIWIB58IAx8Ih4gIIVCMIkiICAhfCIhIBogFyAZhUIwiSIXIBt8IhkgFIVCAYkiFHwgEHwiGiAdhUIgiSIbICR8Ih0gFIVCKIkiFCAafCAJfCIaIBuFQjCJIhsgHyAPhUIBiSIPICJ8IBN8Ih8gF4VCIIkiFyAYIBx8Ihh8IhwgD4VCKIkiDyAffCABfCIfIBeFQjCJIhcgHHwiHCAPhUIBiSIPIBggDoVCAYkiDiAVfCAIfCIVICOFQiCJIhggGXwiGSAOhUIoiSIOIBV8IA18IhV8IA18IiKFQiCJIiN8IiQgD4VCKIkiDyAifCAMfCIiICOFQjCJIiMgJHwiJCAPhUIBiSIPIBsgHXwiGyAVIBiFQjCJIhUgISAWhUIBiSIWIB98IBB8IhiFQiCJIh18Ih8gFoVCKIkiFiAYfCAIfCIYfCASfCIhIBUgGXwiFSAXIBsgFIVCAYkiFCAefCAHfCIZhUIgiSIXfCIbIBSFQiiJIhQgGXwgAXwiGSAXhUIwiSIXhUIgiSIeIBwgICAVIA6FQgGJIg4gGnwgAnwiFYVCIIkiGnwiHCAOhUIoiSIOIBV8IAV8IhUgGoVCMIkiGiAcfCIcfCIgIA+FQiiJIg8gIXwgBHwiISAehUIwiSIeICB8IiAgGCAdhUIwiSIYIB98Ih0gFoVCAYkiFiAZfCAGfCIZIBqFQiCJIhogJHwiHyAWhUIoiSIWIBl8IBN8IhkgGoVCMIkiGiAcIA6FQgGJIg4gInwgCXwiHCAYhUIgiSIYIBcgG3wiF3wiGyAOhUIoiSIOIBx8IAN8IhwgGIVCMIkiGCAbfCIbIA6FQgGJIg4gFSAXIBSFQgGJIhR8IAt8IhUgI4VCIIkiFyAdfCIdIBSFQiiJIhQgFXwgCnwiFXwgBHwiIoVCIIkiI3wiJCAOhUIoiSIOICJ8IAl8IiIgGyAeIBUgF4VCMIkiFSAdfCIXIBSFQgGJIhQgGXwgDHwiGYVCIIkiHXwiGyAUhUIoiSIUIBl8IAp8IhkgHYVCMIkiHSAbfCIbIBSFQgGJIhR8IAN8Ih4gGiAffCIaIBUgICAPhUIBiSIPIBx8IAd8IhyFQiCJIhV8Ih8gD4VCKIkiDyAcfCAQfCIcIBWFQjCJIhWFQiCJIiAgFyAYIBogFoVCAYkiFiAhfCATfCIahUIgiSIYfCIXIBaFQiiJIhYgGnwgDXwiGiAYhUIwiSIYIBd8Ihd8IiEgFIVCKIkiFCAefCAFfCIeICCFQjCJIiAgIXwiISAiICOFQjCJIiIgJHwiIyAOhUIBiSIOIBx8IAt8IhwgGIVCIIkiGCAbfCIbIA6FQiiJIg4gHHwgEnwiHCAYhUIwiSIYIBcgFoVCAYkiFiAZfCABfCIXICKFQiCJIhkgFSAffCIVfCIfIBaFQiiJIhYgF3wgBnwiFyAZhUIwiSIZIB98Ih8gFoVCAYkiFiAVIA+FQgGJIg8gGnwgCHwiFSAdhUIgiSIaICN8Ih0gD4VCKIkiDyAVfCACfCIVfCANfCIihUIgiSIjfCIkIBaFQiiJIhYgInwgCXwiIiAjhUIwiSIjICR8IiQgFoVCAYkiFiAYIBt8IhggFSAahUIwiSIVICEgFIVCAYkiFCAXfCASfCIXhUIgiSIafCIbIBSFQiiJIhQgF3wgCHwiF3wgB3wiISAVIB18IhUgGSAYIA6FQgGJIg4gHnwgBnwiGIVCIIkiGXwiHSAOhUIoiSIOIBh8IAt8IhggGYVCMIkiGYVCIIkiHiAfICAgFSAPhUIBiSIPIBx8IAp8IhWFQiCJIhx8Ih8gD4VCKIkiDyAVfCAEfCIVIByFQjCJIhwgH3wiH3wiICAWhUIoiSIWICF8IAN8IiEgHoVCMIkiHiAgfCIgIBggFyAahUIwiSIXIBt8IhogFIVCAYkiFHwgBXwiGCAchUIgiSIbICR8IhwgFIVCKIkiFCAYfCABfCIYIBuFQjCJIhsgHyAPhUIBiSIPICJ8IAx8Ih8gF4VCIIkiFyAZIB18Ihl8Ih0gD4VCKIkiDyAffCATfCIfIBeFQjCJIhcgHXwiHSAPhUIBiSIPIBkgDoVCAYkiDiAVfCAQfCIVICOFQiCJIhkgGnwiGiAOhUIoiSIOIBV8IAJ8IhV8IBN8IiKFQiCJIiN8IiQgD4VCKIkiDyAifCASfCIiICOFQjCJIiMgJHwiJCAPhUIBiSIPIBsgHHwiGyAVIBmFQjCJIhUgICAWhUIBiSIWIB98IAt8IhmFQiCJIhx8Ih8gFoVCKIkiFiAZfCACfCIZfCAJfCIgIBUgGnwiFSAXIBsgFIVCAYkiFCAhfCAFfCIahUIgiSIXfCIbIBSFQiiJIhQgGnwgA3wiGiAXhUIwiSIXhUIgiSIhIB0gHiAVIA6FQgGJIg4gGHwgEHwiFYVCIIkiGHwiHSAOhUIoiSIOIBV8IAF8IhUgGIVCMIkiGCAdfCIdfCIeIA+FQiiJIg8gIHwgDXwiICAhhUIwiSIhIB58Ih4gGSAchUIwiSIZIB98IhwgFoVCAYkiFiAafCAIfCIaIBiFQiCJIhggJHwiHyAWhUIoiSIWIBp8IAp8IhogGIVCMIkiGCAdIA6FQgGJIg4gInwgBHwiHSAZhUIgiSIZIBcgG3wiF3wiGyAOhUIoiSIOIB18IAd8Ih0gGYVCMIkiGSAbfCIbIA6FQgGJIg4gFSAXIBSFQgGJIhR8IAx8IhUgI4VCIIkiFyAcfCIcIBSFQiiJIhQgFXwgBnwiFXwgEnwiIoVCIIkiI3wiJCAOhUIoiSIOICJ8IBN8IiIgGyAhIBUgF4VCMIkiFSAcfCIXIBSFQgGJIhQgGnwgBnwiGoVCIIkiHHwiGyAUhUIoiSIUIBp8IBB8IhogHIVCMIkiHCAbfCIbIBSFQgGJIhR8IA18IiEgGCAffCIYIBUgHiAPhUIBiSIPIB18IAJ8Ih2FQiCJIhV8Ih4gD4VCKIkiDyAdfCABfCIdIBWFQjCJIhWFQiCJIh8gFyAZIBggFoVCAYkiFiAgfCADfCIYhUIgiSIZfCIXIBaFQiiJIhYgGHwgBHwiGCAZhUIwiSIZIBd8Ihd8IiAgFIVCKIkiFCAhfCAIfCIhIB+FQjCJIh8gIHwiICAiICOFQjCJIiIgJHwiIyAOhUIBiSIOIB18IAd8Ih0gGYVCIIkiGSAbfCIbIA6FQiiJIg4gHXwgDHwiHSAZhUIwiSIZIBcgFoVCAYkiFiAafCALfCIXICKFQiCJIhogFSAefCIVfCIeIBaFQiiJIhYgF3wgCXwiFyAahUIwiSIaIB58Ih4gFoVCAYkiFiAVIA+FQgGJIg8gGHwgBXwiFSAchUIgiSIYICN8IhwgD4VCKIkiDyAVfCAKfCIVfCACfCIChUIgiSIifCIjIBaFQiiJIhYgAnwgC3wiAiAihUIwiSILICN8IiIgFoVCAYkiFiAZIBt8IhkgFSAYhUIwiSIVICAgFIVCAYkiFCAXfCANfCINhUIgiSIXfCIYIBSFQiiJIhQgDXwgBXwiBXwgEHwiECAVIBx8Ig0gGiAZIA6FQgGJIg4gIXwgDHwiDIVCIIkiFXwiGSAOhUIoiSIOIAx8IBJ8IhIgFYVCMIkiDIVCIIkiFSAeIB8gDSAPhUIBiSINIB18IAl8IgmFQiCJIg98IhogDYVCKIkiDSAJfCAIfCIJIA+FQjCJIgggGnwiD3wiGiAWhUIoiSIWIBB8IAd8IhAgEYUgDCAZfCIHIA6FQgGJIgwgCXwgCnwiCiALhUIgiSILIAUgF4VCMIkiBSAYfCIJfCIOIAyFQiiJIgwgCnwgE3wiEyALhUIwiSIKIA58IguFNwOAgQVBACADIAYgDyANhUIBiSINIAJ8fCICIAWFQiCJIgUgB3wiBiANhUIoiSIHIAJ8fCICQQApA4iBBYUgBCABIBIgCSAUhUIBiSIDfHwiASAIhUIgiSISICJ8IgkgA4VCKIkiAyABfHwiASAShUIwiSIEIAl8IhKFNwOIgQVBACATQQApA5CBBYUgECAVhUIwiSIQIBp8IhOFNwOQgQVBACABQQApA5iBBYUgAiAFhUIwiSICIAZ8IgGFNwOYgQVBACASIAOFQgGJQQApA6CBBYUgAoU3A6CBBUEAIBMgFoVCAYlBACkDqIEFhSAKhTcDqIEFQQAgASAHhUIBiUEAKQOwgQWFIASFNwOwgQVBACALIAyFQgGJQQApA7iBBYUgEIU3A7iBBQveAgUBfwF+AX8BfgJ/IwBBwABrIgAkAAJAQQApA9CBBUIAUg0AQQBBACkDwIEFIgFBACgC4IIFIgKsfCIDNwPAgQVBAEEAKQPIgQUgAyABVK18NwPIgQUCQEEALQDoggVFDQBBAEJ/NwPYgQULQQBCfzcD0IEFAkAgAkH/AEoNAEEAIQQDQCACIARqQeCBBWpBADoAACAEQQFqIgRBgAFBACgC4IIFIgJrSA0ACwtB4IEFEAIgAEEAKQOAgQU3AwAgAEEAKQOIgQU3AwggAEEAKQOQgQU3AxAgAEEAKQOYgQU3AxggAEEAKQOggQU3AyAgAEEAKQOogQU3AyggAEEAKQOwgQU3AzAgAEEAKQO4gQU3AzhBACgC5IIFIgVBAUgNAEEAIQJBACEEA0AgBEGAgQRqIAAgBGotAAA6AAAgBEEBaiEEIAUgAkEBaiICQf8BcUsNAAsLIABBwABqJAAL+gMCAn8BfiMAQYABayICJABBAEGBAjsB8oIFQQAgAToA8YIFQQAgADoA8IIFQZB+IQADQCAAQYCDBWpCADcAACAAQfiCBWpCADcAACAAQfCCBWpCADcAACAAQRhqIgANAAtBACEDQQBBACkD8IIFIgRCiJLznf/M+YTqAIU3A4CBBUEAQQApA/iCBUK7zqqm2NDrs7t/hTcDiIEFQQBBACkDgIMFQqvw0/Sv7ry3PIU3A5CBBUEAQQApA4iDBULx7fT4paf9p6V/hTcDmIEFQQBBACkDkIMFQtGFmu/6z5SH0QCFNwOggQVBAEEAKQOYgwVCn9j52cKR2oKbf4U3A6iBBUEAQQApA6CDBULr+obav7X2wR+FNwOwgQVBAEEAKQOogwVC+cL4m5Gjs/DbAIU3A7iBBUEAIASnQf8BcTYC5IIFAkAgAUUNACACQgA3A3ggAkIANwNwIAJCADcDaCACQgA3A2AgAkIANwNYIAJCADcDUCACQgA3A0ggAkIANwNAIAJCADcDOCACQgA3AzAgAkIANwMoIAJCADcDICACQgA3AxggAkIANwMQIAJCADcDCCACQgA3AwBBACEAA0AgAiAAaiAAQYCBBGotAAA6AAAgAEEBaiEAIAEgA0EBaiIDQf8BcUsNAAsgAkGAARABCyACQYABaiQACxIAIABBA3ZB/z9xIABBEHYQBAsKAEGAgQQgABABCwYAQYCBBQscACABQQN2Qf8/cSABQRB2EARBgIEEIAAQARADCwsMAQBBgIAECwTwAAAA";
var hash$j = "22cf500a";
var wasmJson$j = {
	name: name$j,
	data: data$j,
	hash: hash$j
};

const mutex$k = new Mutex();
let wasmCache$k = null;
function validateBits$4(bits) {
    if (!Number.isInteger(bits) || bits < 8 || bits > 512 || bits % 8 !== 0) {
        return new Error("Invalid variant! Valid values: 8, 16, ..., 512");
    }
    return null;
}
function getInitParam$1(outputBits, keyBits) {
    return outputBits | (keyBits << 16);
}
/**
 * Calculates BLAKE2b hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param bits Number of output bits, which has to be a number
 *             divisible by 8, between 8 and 512. Defaults to 512.
 * @param key Optional key (string, Buffer or TypedArray). Maximum length is 64 bytes.
 * @returns Computed hash as a hexadecimal string
 */
function blake2b(data, bits = 512, key = null) {
    if (validateBits$4(bits)) {
        return Promise.reject(validateBits$4(bits));
    }
    let keyBuffer = null;
    let initParam = bits;
    if (key !== null) {
        keyBuffer = getUInt8Buffer(key);
        if (keyBuffer.length > 64) {
            return Promise.reject(new Error("Max key length is 64 bytes"));
        }
        initParam = getInitParam$1(bits, keyBuffer.length);
    }
    const hashLength = bits / 8;
    if (wasmCache$k === null || wasmCache$k.hashLength !== hashLength) {
        return lockedCreate(mutex$k, wasmJson$j, hashLength).then((wasm) => {
            wasmCache$k = wasm;
            if (initParam > 512) {
                wasmCache$k.writeMemory(keyBuffer);
            }
            return wasmCache$k.calculate(data, initParam);
        });
    }
    try {
        if (initParam > 512) {
            wasmCache$k.writeMemory(keyBuffer);
        }
        const hash = wasmCache$k.calculate(data, initParam);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new BLAKE2b hash instance
 * @param bits Number of output bits, which has to be a number
 *             divisible by 8, between 8 and 512. Defaults to 512.
 * @param key Optional key (string, Buffer or TypedArray). Maximum length is 64 bytes.
 */
function createBLAKE2b(bits = 512, key = null) {
    if (validateBits$4(bits)) {
        return Promise.reject(validateBits$4(bits));
    }
    let keyBuffer = null;
    let initParam = bits;
    if (key !== null) {
        keyBuffer = getUInt8Buffer(key);
        if (keyBuffer.length > 64) {
            return Promise.reject(new Error("Max key length is 64 bytes"));
        }
        initParam = getInitParam$1(bits, keyBuffer.length);
    }
    const outputSize = bits / 8;
    return WASMInterface(wasmJson$j, outputSize).then((wasm) => {
        if (initParam > 512) {
            wasm.writeMemory(keyBuffer);
        }
        wasm.init(initParam);
        const obj = {
            init: initParam > 512
                ? () => {
                    wasm.writeMemory(keyBuffer);
                    wasm.init(initParam);
                    return obj;
                }
                : () => {
                    wasm.init(initParam);
                    return obj;
                },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 128,
            digestSize: outputSize,
        };
        return obj;
    });
}

function encodeResult(salt, options, res) {
    const parameters = [
        `m=${options.memorySize}`,
        `t=${options.iterations}`,
        `p=${options.parallelism}`,
    ].join(",");
    return `$argon2${options.hashType}$v=19$${parameters}$${encodeBase64(salt, false)}$${encodeBase64(res, false)}`;
}
const uint32View = new DataView(new ArrayBuffer(4));
function int32LE(x) {
    uint32View.setInt32(0, x, true);
    return new Uint8Array(uint32View.buffer);
}
function hashFunc(blake512, buf, len) {
    return __awaiter(this, void 0, void 0, function* () {
        if (len <= 64) {
            const blake = yield createBLAKE2b(len * 8);
            blake.update(int32LE(len));
            blake.update(buf);
            return blake.digest("binary");
        }
        const r = Math.ceil(len / 32) - 2;
        const ret = new Uint8Array(len);
        blake512.init();
        blake512.update(int32LE(len));
        blake512.update(buf);
        let vp = blake512.digest("binary");
        ret.set(vp.subarray(0, 32), 0);
        for (let i = 1; i < r; i++) {
            blake512.init();
            blake512.update(vp);
            vp = blake512.digest("binary");
            ret.set(vp.subarray(0, 32), i * 32);
        }
        const partialBytesNeeded = len - 32 * r;
        let blakeSmall;
        if (partialBytesNeeded === 64) {
            blakeSmall = blake512;
            blakeSmall.init();
        }
        else {
            blakeSmall = yield createBLAKE2b(partialBytesNeeded * 8);
        }
        blakeSmall.update(vp);
        vp = blakeSmall.digest("binary");
        ret.set(vp.subarray(0, partialBytesNeeded), r * 32);
        return ret;
    });
}
function getHashType(type) {
    switch (type) {
        case "d":
            return 0;
        case "i":
            return 1;
        default:
            return 2;
    }
}
function argon2Internal(options) {
    return __awaiter(this, void 0, void 0, function* () {
        var _a;
        const { parallelism, iterations, hashLength } = options;
        const password = getUInt8Buffer(options.password);
        const salt = getUInt8Buffer(options.salt);
        const version = 0x13;
        const hashType = getHashType(options.hashType);
        const { memorySize } = options; // in KB
        const secret = getUInt8Buffer((_a = options.secret) !== null && _a !== void 0 ? _a : "");
        const [argon2Interface, blake512] = yield Promise.all([
            WASMInterface(wasmJson$k, 1024),
            createBLAKE2b(512),
        ]);
        // last block is for storing the init vector
        argon2Interface.setMemorySize(memorySize * 1024 + 1024);
        const initVector = new Uint8Array(24);
        const initVectorView = new DataView(initVector.buffer);
        initVectorView.setInt32(0, parallelism, true);
        initVectorView.setInt32(4, hashLength, true);
        initVectorView.setInt32(8, memorySize, true);
        initVectorView.setInt32(12, iterations, true);
        initVectorView.setInt32(16, version, true);
        initVectorView.setInt32(20, hashType, true);
        argon2Interface.writeMemory(initVector, memorySize * 1024);
        blake512.init();
        blake512.update(initVector);
        blake512.update(int32LE(password.length));
        blake512.update(password);
        blake512.update(int32LE(salt.length));
        blake512.update(salt);
        blake512.update(int32LE(secret.length));
        blake512.update(secret);
        blake512.update(int32LE(0)); // associatedData length + associatedData
        const segments = Math.floor(memorySize / (parallelism * 4)); // length of each lane
        const lanes = segments * 4;
        const param = new Uint8Array(72);
        const H0 = blake512.digest("binary");
        param.set(H0);
        for (let lane = 0; lane < parallelism; lane++) {
            param.set(int32LE(0), 64);
            param.set(int32LE(lane), 68);
            let position = lane * lanes;
            let chunk = yield hashFunc(blake512, param, 1024);
            argon2Interface.writeMemory(chunk, position * 1024);
            position += 1;
            param.set(int32LE(1), 64);
            chunk = yield hashFunc(blake512, param, 1024);
            argon2Interface.writeMemory(chunk, position * 1024);
        }
        const C = new Uint8Array(1024);
        writeHexToUInt8(C, argon2Interface.calculate(new Uint8Array([]), memorySize));
        const res = yield hashFunc(blake512, C, hashLength);
        if (options.outputType === "hex") {
            const digestChars = new Uint8Array(hashLength * 2);
            return getDigestHex(digestChars, res, hashLength);
        }
        if (options.outputType === "encoded") {
            return encodeResult(salt, options, res);
        }
        // return binary format
        return res;
    });
}
const validateOptions$3 = (options) => {
    var _a;
    if (!options || typeof options !== "object") {
        throw new Error("Invalid options parameter. It requires an object.");
    }
    if (!options.password) {
        throw new Error("Password must be specified");
    }
    options.password = getUInt8Buffer(options.password);
    if (options.password.length < 1) {
        throw new Error("Password must be specified");
    }
    if (!options.salt) {
        throw new Error("Salt must be specified");
    }
    options.salt = getUInt8Buffer(options.salt);
    if (options.salt.length < 8) {
        throw new Error("Salt should be at least 8 bytes long");
    }
    options.secret = getUInt8Buffer((_a = options.secret) !== null && _a !== void 0 ? _a : "");
    if (!Number.isInteger(options.iterations) || options.iterations < 1) {
        throw new Error("Iterations should be a positive number");
    }
    if (!Number.isInteger(options.parallelism) || options.parallelism < 1) {
        throw new Error("Parallelism should be a positive number");
    }
    if (!Number.isInteger(options.hashLength) || options.hashLength < 4) {
        throw new Error("Hash length should be at least 4 bytes.");
    }
    if (!Number.isInteger(options.memorySize)) {
        throw new Error("Memory size should be specified.");
    }
    if (options.memorySize < 8 * options.parallelism) {
        throw new Error("Memory size should be at least 8 * parallelism.");
    }
    if (options.outputType === undefined) {
        options.outputType = "hex";
    }
    if (!["hex", "binary", "encoded"].includes(options.outputType)) {
        throw new Error(`Insupported output type ${options.outputType}. Valid values: ['hex', 'binary', 'encoded']`);
    }
};
/**
 * Calculates hash using the argon2i password-hashing function
 * @returns Computed hash
 */
function argon2i(options) {
    return __awaiter(this, void 0, void 0, function* () {
        validateOptions$3(options);
        return argon2Internal(Object.assign(Object.assign({}, options), { hashType: "i" }));
    });
}
/**
 * Calculates hash using the argon2id password-hashing function
 * @returns Computed hash
 */
function argon2id(options) {
    return __awaiter(this, void 0, void 0, function* () {
        validateOptions$3(options);
        return argon2Internal(Object.assign(Object.assign({}, options), { hashType: "id" }));
    });
}
/**
 * Calculates hash using the argon2d password-hashing function
 * @returns Computed hash
 */
function argon2d(options) {
    return __awaiter(this, void 0, void 0, function* () {
        validateOptions$3(options);
        return argon2Internal(Object.assign(Object.assign({}, options), { hashType: "d" }));
    });
}
const getHashParameters = (password, encoded, secret) => {
    const regex = /^\$argon2(id|i|d)\$v=([0-9]+)\$((?:[mtp]=[0-9]+,){2}[mtp]=[0-9]+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;
    const match = encoded.match(regex);
    if (!match) {
        throw new Error("Invalid hash");
    }
    const [, hashType, version, parameters, salt, hash] = match;
    if (version !== "19") {
        throw new Error(`Unsupported version: ${version}`);
    }
    const parsedParameters = {};
    const paramMap = { m: "memorySize", p: "parallelism", t: "iterations" };
    for (const x of parameters.split(",")) {
        const [n, v] = x.split("=");
        parsedParameters[paramMap[n]] = Number(v);
    }
    return Object.assign(Object.assign({}, parsedParameters), { password,
        secret, hashType: hashType, salt: decodeBase64(salt), hashLength: getDecodeBase64Length(hash), outputType: "encoded" });
};
const validateVerifyOptions$1 = (options) => {
    if (!options || typeof options !== "object") {
        throw new Error("Invalid options parameter. It requires an object.");
    }
    if (options.hash === undefined || typeof options.hash !== "string") {
        throw new Error("Hash should be specified");
    }
};
/**
 * Verifies password using the argon2 password-hashing function
 * @returns True if the encoded hash matches the password
 */
function argon2Verify(options) {
    return __awaiter(this, void 0, void 0, function* () {
        validateVerifyOptions$1(options);
        const params = getHashParameters(options.password, options.hash, options.secret);
        validateOptions$3(params);
        const hashStart = options.hash.lastIndexOf("$") + 1;
        const result = (yield argon2Internal(params));
        return result.substring(hashStart) === options.hash.substring(hashStart);
    });
}

var name$i = "blake2s";
var data$i = "AGFzbQEAAAABEQRgAAF/YAJ/fwBgAX8AYAAAAwkIAAECAwICAAEFBAEBAgIGDwJ/AUGAgAQLfwBBgIAECweCAQkGbWVtb3J5AgAPX19zdGFja19wb2ludGVyAwAOSGFzaF9HZXRCdWZmZXIAAApIYXNoX0ZpbmFsAAMJSGFzaF9Jbml0AAQLSGFzaF9VcGRhdGUABQ1IYXNoX0dldFN0YXRlAAYOSGFzaF9DYWxjdWxhdGUABwpTVEFURV9TSVpFAwEK+DIIBgBBgIEEC+cFAQZ/AkAgAUEBSA0AAkACQAJAIAFBwABBACgC8IEFIgJrIgNKDQAgASEEDAELQQBBADYC8IEFAkAgAkHAAEYNACACQbCBBWohBQJAAkAgA0EHcSIGDQAgACEHIAMhBAwBCyAGIQQgACEHA0AgBSAHLQAAOgAAIAVBAWohBSAHQQFqIQcgBEF/aiIEDQALQcAAIAIgBmprIQQLIAJBR2pBB0kNAANAIAUgBy0AADoAACAFQQFqIAdBAWotAAA6AAAgBUECaiAHQQJqLQAAOgAAIAVBA2ogB0EDai0AADoAACAFQQRqIAdBBGotAAA6AAAgBUEFaiAHQQVqLQAAOgAAIAVBBmogB0EGai0AADoAACAFQQdqIAdBB2otAAA6AAAgBUEIaiEFIAdBCGohByAEQXhqIgQNAAsLQQAhBkEAQQAoAqCBBSIFQcAAajYCoIEFQQBBACgCpIEFIAVBv39LajYCpIEFQbCBBRACIAAgA2ohAAJAIAEgA2siBEHBAEkNACACIAFqIQUDQEEAQQAoAqCBBSIHQcAAajYCoIEFQQBBACgCpIEFIAdBv39LajYCpIEFIAAQAiAAQcAAaiEAIAVBQGoiBUGAAUoNAAsgBUFAaiEEC0EAKALwgQUhAiAERQ0BCyACQbCBBWohBQJAAkAgBEEHcSIHDQAgBCEHDAELA0AgBSAALQAAOgAAIAVBAWohBSAAQQFqIQAgB0F/aiIHDQALIARBeHEhBwsCQCAEQQhJDQADQCAFIAAtAAA6AAAgBUEBaiAAQQFqLQAAOgAAIAVBAmogAEECai0AADoAACAFQQNqIABBA2otAAA6AAAgBUEEaiAAQQRqLQAAOgAAIAVBBWogAEEFai0AADoAACAFQQZqIABBBmotAAA6AAAgBUEHaiAAQQdqLQAAOgAAIAVBCGohBSAAQQhqIQAgB0F4aiIHDQALC0EAKALwgQUhAiAEIQYLQQAgAiAGajYC8IEFCwuXJwoBfgF/An4CfwF+B38DfgZ/AX4Sf0EAQQApA5iBBSIBpyICQQApA4iBBSIDp2ogACkDECIEpyIFaiIGQQApA6iBBUKrs4/8kaOz8NsAhSIHp3NBEHciCEHy5rvjA2oiCSACc0EUdyIKIAZqIARCIIinIgJqIgsgCHNBGHciDCAJaiINIApzQRl3Ig5BACkDkIEFIgRCIIinIghBACkDgIEFIg9CIIinaiAAKQMIIhCnIgZqIglBACkDoIEFQv+kuYjFkdqCm3+FIhFCIIinc0EQdyISQYXdntt7aiITIAhzQRR3IhQgCWogEEIgiKciCGoiFWogACkDKCIQpyIJaiIWIASnIhcgD6dqIAApAwAiGKciCmoiGSARp3NBEHciGkHnzKfQBmoiGyAXc0EUdyIcIBlqIBhCIIinIhdqIh0gGnNBGHciHnNBEHciHyABQiCIpyIaIANCIIinaiAAKQMYIgGnIhlqIiAgB0IgiKdzQRB3IiFBuuq/qnpqIiIgGnNBFHciIyAgaiABQiCIpyIaaiIgICFzQRh3IiEgImoiImoiJCAOc0EUdyIlIBZqIBBCIIinIg5qIhYgH3NBGHciHyAkaiIkIBUgEnNBGHciFSATaiImIBRzQRl3IhMgHWogACkDICIBpyISaiIUICFzQRB3Ih0gDWoiISATc0EUdyInIBRqIAFCIIinIg1qIhQgHXNBGHciHSAiICNzQRl3IhMgC2ogACkDMCIBpyILaiIiIBVzQRB3IhUgHiAbaiIbaiIeIBNzQRR3IiMgImogAUIgiKciE2oiIiAVc0EYdyIVIB5qIh4gI3NBGXciIyAgIBsgHHNBGXciG2ogACkDOCIBpyIAaiIcIAxzQRB3IiAgJmoiJiAbc0EUdyIbIBxqIAFCIIinIgxqIhxqIBNqIihzQRB3IilqIiogI3NBFHciIyAoaiAZaiIoIB4gHyAcICBzQRh3IhwgJmoiICAbc0EZdyIbIBRqIABqIhRzQRB3Ih9qIh4gG3NBFHciGyAUaiAJaiIUIB9zQRh3Ih8gHmoiHiAbc0EZdyIbaiACaiImIB0gIWoiHSAcICQgJXNBGXciISAiaiANaiIic0EQdyIcaiIkICFzQRR3IiEgImogDGoiIiAcc0EYdyIcc0EQdyIlICAgFSAdICdzQRl3Ih0gFmogBWoiFnNBEHciFWoiICAdc0EUdyIdIBZqIBJqIhYgFXNBGHciFSAgaiIgaiInIBtzQRR3IhsgJmogCGoiJiAlc0EYdyIlICdqIicgKCApc0EYdyIoICpqIikgI3NBGXciIyAiaiAOaiIiIBVzQRB3IhUgHmoiHiAjc0EUdyIjICJqIBpqIiIgFXNBGHciFSAgIB1zQRl3Ih0gFGogF2oiFCAoc0EQdyIgIBwgJGoiHGoiJCAdc0EUdyIdIBRqIAtqIhQgIHNBGHciICAkaiIkIB1zQRl3Ih0gHCAhc0EZdyIcIBZqIApqIhYgH3NBEHciHyApaiIhIBxzQRR3IhwgFmogBmoiFmogC2oiKHNBEHciKWoiKiAdc0EUdyIdIChqIApqIiggKXNBGHciKSAqaiIqIB1zQRl3Ih0gFSAeaiIVIBYgH3NBGHciFiAnIBtzQRl3IhsgFGogDmoiFHNBEHciHmoiHyAbc0EUdyIbIBRqIBJqIhRqIAlqIicgFiAhaiIWICAgFSAjc0EZdyIVICZqIAxqIiFzQRB3IiBqIiMgFXNBFHciFSAhaiATaiIhICBzQRh3IiBzQRB3IiYgJCAlIBYgHHNBGXciFiAiaiACaiIcc0EQdyIiaiIkIBZzQRR3IhYgHGogBmoiHCAic0EYdyIiICRqIiRqIiUgHXNBFHciHSAnaiAAaiInICZzQRh3IiYgJWoiJSAhIBQgHnNBGHciFCAfaiIeIBtzQRl3IhtqIA1qIh8gInNBEHciISAqaiIiIBtzQRR3IhsgH2ogBWoiHyAhc0EYdyIhICQgFnNBGXciFiAoaiAIaiIkIBRzQRB3IhQgICAjaiIgaiIjIBZzQRR3IhYgJGogGWoiJCAUc0EYdyIUICNqIiMgFnNBGXciFiAgIBVzQRl3IhUgHGogGmoiHCApc0EQdyIgIB5qIh4gFXNBFHciFSAcaiAXaiIcaiATaiIoc0EQdyIpaiIqIBZzQRR3IhYgKGogC2oiKCApc0EYdyIpICpqIiogFnNBGXciFiAhICJqIiEgHCAgc0EYdyIcICUgHXNBGXciHSAkaiAIaiIgc0EQdyIiaiIkIB1zQRR3Ih0gIGogF2oiIGogAmoiJSAcIB5qIhwgFCAhIBtzQRl3IhsgJ2ogGmoiHnNBEHciFGoiISAbc0EUdyIbIB5qIA1qIh4gFHNBGHciFHNBEHciJyAjICYgHCAVc0EZdyIVIB9qIA5qIhxzQRB3Ih9qIiMgFXNBFHciFSAcaiAAaiIcIB9zQRh3Ih8gI2oiI2oiJiAWc0EUdyIWICVqIAlqIiUgJ3NBGHciJyAmaiImICAgInNBGHciICAkaiIiIB1zQRl3Ih0gHmogBmoiHiAfc0EQdyIfICpqIiQgHXNBFHciHSAeaiAZaiIeIB9zQRh3Ih8gIyAVc0EZdyIVIChqIAVqIiMgIHNBEHciICAUICFqIhRqIiEgFXNBFHciFSAjaiAKaiIjICBzQRh3IiAgIWoiISAVc0EZdyIVIBwgFCAbc0EZdyIUaiAMaiIbIClzQRB3IhwgImoiIiAUc0EUdyIUIBtqIBJqIhtqIAlqIihzQRB3IilqIiogFXNBFHciFSAoaiAMaiIoICEgJyAbIBxzQRh3IhsgImoiHCAUc0EZdyIUIB5qIA1qIh5zQRB3IiJqIiEgFHNBFHciFCAeaiAKaiIeICJzQRh3IiIgIWoiISAUc0EZdyIUaiAIaiInIB8gJGoiHyAbICYgFnNBGXciFiAjaiAGaiIjc0EQdyIbaiIkIBZzQRR3IhYgI2ogBWoiIyAbc0EYdyIbc0EQdyImIBwgICAfIB1zQRl3Ih0gJWogAmoiH3NBEHciIGoiHCAdc0EUdyIdIB9qIBpqIh8gIHNBGHciICAcaiIcaiIlIBRzQRR3IhQgJ2ogE2oiJyAmc0EYdyImICVqIiUgKCApc0EYdyIoICpqIikgFXNBGXciFSAjaiAZaiIjICBzQRB3IiAgIWoiISAVc0EUdyIVICNqIBJqIiMgIHNBGHciICAcIB1zQRl3IhwgHmogAGoiHSAoc0EQdyIeIBsgJGoiG2oiJCAcc0EUdyIcIB1qIBdqIh0gHnNBGHciHiAkaiIkIBxzQRl3IhwgGyAWc0EZdyIWIB9qIA5qIhsgInNBEHciHyApaiIiIBZzQRR3IhYgG2ogC2oiG2ogGWoiKHNBEHciKWoiKiAcc0EUdyIcIChqIAlqIiggKXNBGHciKSAqaiIqIBxzQRl3IhwgICAhaiIgIBsgH3NBGHciGyAlIBRzQRl3IhQgHWogBmoiHXNBEHciH2oiISAUc0EUdyIUIB1qIAtqIh1qIAVqIiUgGyAiaiIbIB4gICAVc0EZdyIVICdqIBJqIiBzQRB3Ih5qIiIgFXNBFHciFSAgaiAIaiIgIB5zQRh3Ih5zQRB3IicgJCAmIBsgFnNBGXciFiAjaiAKaiIbc0EQdyIjaiIkIBZzQRR3IhYgG2ogDmoiGyAjc0EYdyIjICRqIiRqIiYgHHNBFHciHCAlaiATaiIlICdzQRh3IicgJmoiJiAgIB0gH3NBGHciHSAhaiIfIBRzQRl3IhRqIBdqIiAgI3NBEHciISAqaiIjIBRzQRR3IhQgIGogDWoiICAhc0EYdyIhICQgFnNBGXciFiAoaiAaaiIkIB1zQRB3Ih0gHiAiaiIeaiIiIBZzQRR3IhYgJGogAmoiJCAdc0EYdyIdICJqIiIgFnNBGXciFiAeIBVzQRl3IhUgG2ogDGoiGyApc0EQdyIeIB9qIh8gFXNBFHciFSAbaiAAaiIbaiAAaiIoc0EQdyIpaiIqIBZzQRR3IhYgKGogE2oiKCApc0EYdyIpICpqIiogFnNBGXciFiAhICNqIiEgGyAec0EYdyIbICYgHHNBGXciHCAkaiAXaiIec0EQdyIjaiIkIBxzQRR3IhwgHmogDGoiHmogGWoiJiAbIB9qIhsgHSAhIBRzQRl3IhQgJWogC2oiH3NBEHciHWoiISAUc0EUdyIUIB9qIAJqIh8gHXNBGHciHXNBEHciJSAiICcgGyAVc0EZdyIVICBqIAVqIhtzQRB3IiBqIiIgFXNBFHciFSAbaiAJaiIbICBzQRh3IiAgImoiImoiJyAWc0EUdyIWICZqIAhqIiYgJXNBGHciJSAnaiInIB4gI3NBGHciHiAkaiIjIBxzQRl3IhwgH2ogCmoiHyAgc0EQdyIgICpqIiQgHHNBFHciHCAfaiAaaiIfICBzQRh3IiAgIiAVc0EZdyIVIChqIA1qIiIgHnNBEHciHiAdICFqIh1qIiEgFXNBFHciFSAiaiAGaiIiIB5zQRh3Ih4gIWoiISAVc0EZdyIVIBsgHSAUc0EZdyIUaiASaiIbIClzQRB3Ih0gI2oiIyAUc0EUdyIUIBtqIA5qIhtqIAhqIihzQRB3IilqIiogFXNBFHciFSAoaiANaiIoICEgJSAbIB1zQRh3IhsgI2oiHSAUc0EZdyIUIB9qIBNqIh9zQRB3IiNqIiEgFHNBFHciFCAfaiAOaiIfICNzQRh3IiMgIWoiISAUc0EZdyIUaiAGaiIlICAgJGoiICAbICcgFnNBGXciFiAiaiALaiIic0EQdyIbaiIkIBZzQRR3IhYgImogF2oiIiAbc0EYdyIbc0EQdyInIB0gHiAgIBxzQRl3IhwgJmogGmoiIHNBEHciHmoiHSAcc0EUdyIcICBqIABqIiAgHnNBGHciHiAdaiIdaiImIBRzQRR3IhQgJWogCWoiJSAnc0EYdyInICZqIiYgKCApc0EYdyIoICpqIikgFXNBGXciFSAiaiASaiIiIB5zQRB3Ih4gIWoiISAVc0EUdyIVICJqIBlqIiIgHnNBGHciHiAdIBxzQRl3IhwgH2ogAmoiHSAoc0EQdyIfIBsgJGoiG2oiJCAcc0EUdyIcIB1qIApqIh0gH3NBGHciHyAkaiIkIBxzQRl3IhwgGyAWc0EZdyIWICBqIAxqIhsgI3NBEHciICApaiIjIBZzQRR3IhYgG2ogBWoiG2ogAGoiKHNBEHciKWoiKiAcc0EUdyIcIChqIA1qIiggKXNBGHciKSAqaiIqIBxzQRl3IhwgHiAhaiIeIBsgIHNBGHciGyAmIBRzQRl3IhQgHWogGWoiHXNBEHciIGoiISAUc0EUdyIUIB1qIAxqIh1qIAtqIiYgGyAjaiIbIB8gHiAVc0EZdyIVICVqIApqIh5zQRB3Ih9qIiMgFXNBFHciFSAeaiASaiIeIB9zQRh3Ih9zQRB3IiUgJCAnIBsgFnNBGXciFiAiaiAOaiIbc0EQdyIiaiIkIBZzQRR3IhYgG2ogCGoiGyAic0EYdyIiICRqIiRqIicgHHNBFHciHCAmaiAGaiImICVzQRh3IiUgJ2oiJyAeIB0gIHNBGHciHSAhaiIgIBRzQRl3IhRqIAlqIh4gInNBEHciISAqaiIiIBRzQRR3IhQgHmogAmoiHiAhc0EYdyIhICQgFnNBGXciFiAoaiATaiIkIB1zQRB3Ih0gHyAjaiIfaiIjIBZzQRR3IhYgJGogGmoiJCAdc0EYdyIdICNqIiMgFnNBGXciFiAfIBVzQRl3IhUgG2ogF2oiGyApc0EQdyIfICBqIiAgFXNBFHciFSAbaiAFaiIbaiAaaiIac0EQdyIoaiIpIBZzQRR3IhYgGmogGWoiGSAoc0EYdyIaIClqIiggFnNBGXciFiAhICJqIiEgGyAfc0EYdyIbICcgHHNBGXciHCAkaiASaiISc0EQdyIfaiIiIBxzQRR3IhwgEmogBWoiBWogDWoiEiAbICBqIg0gHSAhIBRzQRl3IhQgJmogCWoiCXNBEHciG2oiHSAUc0EUdyIUIAlqIAZqIgYgG3NBGHciCXNBEHciGyAjICUgDSAVc0EZdyINIB5qIBdqIhdzQRB3IhVqIh4gDXNBFHciDSAXaiACaiICIBVzQRh3IhcgHmoiFWoiHiAWc0EUdyIWIBJqIABqIhKtQiCGIAUgH3NBGHciBSAiaiIAIBxzQRl3IhwgBmogDGoiBiAXc0EQdyIXIChqIgwgHHNBFHciHCAGaiAOaiIGrYQgD4UgAiAJIB1qIgkgFHNBGXciDmogE2oiAiAac0EQdyIaIABqIhMgDnNBFHciDiACaiAKaiICIBpzQRh3IgogE2oiGq1CIIYgFSANc0EZdyINIBlqIAhqIgggBXNBEHciBSAJaiIJIA1zQRR3IhkgCGogC2oiCCAFc0EYdyIFIAlqIgmthIU3A4CBBUEAIAMgAq1CIIYgCK2EhSASIBtzQRh3IgIgHmoiCK1CIIYgBiAXc0EYdyIGIAxqIhethIU3A4iBBUEAIAQgFyAcc0EZd61CIIYgGiAOc0EZd62EhSAFrUIghiACrYSFNwOQgQVBACAJIBlzQRl3rUIghiAIIBZzQRl3rYRBACkDmIEFhSAGrUIghiAKrYSFNwOYgQULngIBBH8jAEEgayIAJAACQEEAKAKogQUNAEEAQQAoAqCBBSIBQQAoAvCBBSICaiIDNgKggQVBAEEAKAKkgQUgAyABSWo2AqSBBQJAQQAtAPiBBUUNAEEAQX82AqyBBQtBAEF/NgKogQUCQCACQT9KDQBBACEBA0AgAiABakGwgQVqQQA6AAAgAUEBaiIBQcAAQQAoAvCBBSICa0gNAAsLQbCBBRACIABBACkDgIEFNwMAIABBACkDiIEFNwMIIABBACkDkIEFNwMQIABBACkDmIEFNwMYQQAoAvSBBSIDQQFIDQBBACECQQAhAQNAIAFBgIEEaiAAIAFqLQAAOgAAIAFBAWohASADIAJBAWoiAkH/AXFLDQALCyAAQSBqJAALqQMBA38jAEHAAGsiASQAQQBBgQI7AYKCBUEAIABBEHYiAjoAgYIFQQAgAEEDdjoAgIIFQZB/IQACQANAIABB+IEFakEANgIAIABB8IEFakIANwMAIABFDQEgAEH8gQVqQQA2AgAgAEEQaiEADAALC0EAIQNBAEEAKAKAggUiAEHnzKfQBnM2AoCBBUEAQQAoAoSCBUGF3Z7be3M2AoSBBUEAQQAoAoiCBUHy5rvjA3M2AoiBBUEAQQAoAoyCBUG66r+qenM2AoyBBUEAQQAoApCCBUH/pLmIBXM2ApCBBUEAQQAoApSCBUGM0ZXYeXM2ApSBBUEAQQAoApiCBUGrs4/8AXM2ApiBBUEAIABB/wFxNgL0gQVBAEEAKAKcggVBmZqD3wVzNgKcgQUCQCACRQ0AIAFCADcDOCABQgA3AzAgAUIANwMoIAFCADcDICABQgA3AxggAUIANwMQIAFCADcDCCABQgA3AwBBACEAA0AgASAAaiAAQYCBBGotAAA6AAAgAEEBaiEAIAIgA0EBaiIDQf8BcUsNAAsgAUHAABABCyABQcAAaiQACwoAQYCBBCAAEAELBgBBgIEFCxAAIAEQBEGAgQQgABABEAMLCwwBAEGAgAQLBHwAAAA=";
var hash$i = "874cf174";
var wasmJson$i = {
	name: name$i,
	data: data$i,
	hash: hash$i
};

const mutex$j = new Mutex();
let wasmCache$j = null;
function validateBits$3(bits) {
    if (!Number.isInteger(bits) || bits < 8 || bits > 256 || bits % 8 !== 0) {
        return new Error("Invalid variant! Valid values: 8, 16, ..., 256");
    }
    return null;
}
function getInitParam(outputBits, keyBits) {
    return outputBits | (keyBits << 16);
}
/**
 * Calculates BLAKE2s hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param bits Number of output bits, which has to be a number
 *             divisible by 8, between 8 and 256. Defaults to 256.
 * @param key Optional key (string, Buffer or TypedArray). Maximum length is 32 bytes.
 * @returns Computed hash as a hexadecimal string
 */
function blake2s(data, bits = 256, key = null) {
    if (validateBits$3(bits)) {
        return Promise.reject(validateBits$3(bits));
    }
    let keyBuffer = null;
    let initParam = bits;
    if (key !== null) {
        keyBuffer = getUInt8Buffer(key);
        if (keyBuffer.length > 32) {
            return Promise.reject(new Error("Max key length is 32 bytes"));
        }
        initParam = getInitParam(bits, keyBuffer.length);
    }
    const hashLength = bits / 8;
    if (wasmCache$j === null || wasmCache$j.hashLength !== hashLength) {
        return lockedCreate(mutex$j, wasmJson$i, hashLength).then((wasm) => {
            wasmCache$j = wasm;
            if (initParam > 512) {
                wasmCache$j.writeMemory(keyBuffer);
            }
            return wasmCache$j.calculate(data, initParam);
        });
    }
    try {
        if (initParam > 512) {
            wasmCache$j.writeMemory(keyBuffer);
        }
        const hash = wasmCache$j.calculate(data, initParam);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new BLAKE2s hash instance
 * @param bits Number of output bits, which has to be a number
 *             divisible by 8, between 8 and 256. Defaults to 256.
 * @param key Optional key (string, Buffer or TypedArray). Maximum length is 32 bytes.
 */
function createBLAKE2s(bits = 256, key = null) {
    if (validateBits$3(bits)) {
        return Promise.reject(validateBits$3(bits));
    }
    let keyBuffer = null;
    let initParam = bits;
    if (key !== null) {
        keyBuffer = getUInt8Buffer(key);
        if (keyBuffer.length > 32) {
            return Promise.reject(new Error("Max key length is 32 bytes"));
        }
        initParam = getInitParam(bits, keyBuffer.length);
    }
    const outputSize = bits / 8;
    return WASMInterface(wasmJson$i, outputSize).then((wasm) => {
        if (initParam > 512) {
            wasm.writeMemory(keyBuffer);
        }
        wasm.init(initParam);
        const obj = {
            init: initParam > 512
                ? () => {
                    wasm.writeMemory(keyBuffer);
                    wasm.init(initParam);
                    return obj;
                }
                : () => {
                    wasm.init(initParam);
                    return obj;
                },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 64,
            digestSize: outputSize,
        };
        return obj;
    });
}

var name$h = "blake3";
var data$h = "AGFzbQEAAAABMQdgAAF/YAl/f39+f39/f38AYAZ/f39/fn8AYAF/AGADf39/AGABfgBgBX9/fn9/AX8DDg0AAQIDBAUGAwMDAwAEBQQBAQICBg8CfwFBgIAEC38AQYCABAsHggEJBm1lbW9yeQIAD19fc3RhY2tfcG9pbnRlcgMADkhhc2hfR2V0QnVmZmVyAAAJSGFzaF9Jbml0AAgLSGFzaF9VcGRhdGUACQpIYXNoX0ZpbmFsAAoNSGFzaF9HZXRTdGF0ZQALDkhhc2hfQ2FsY3VsYXRlAAwKU1RBVEVfU0laRQMBCrRYDQYAQYCBBAvUAgIDfwV+IwBB4ABrIgkkAAJAIAFFDQAgByAFciEKIAYgB0EAIAJBAUYbciAFciELIAStIQwDQCAAKAIAIQcgCUEAKQOAgQU3AwAgCUEAKQOIgQU3AwggCUEAKQOQgQU3AxAgCUEAKQOYgQU3AxggCUEgaiAJIAdBwAAgAyALEAIgB0HAAGohByACIQQCQANAIAkgCSkDQCAJKQMghSINNwMAIAkgCSkDSCAJKQMohSIONwMIIAkgCSkDUCAJKQMwhSIPNwMQIAkgCSkDWCAJKQM4hSIQNwMYIAUhBgJAAkAgBEF/aiIEDgIDAAELIAohBgsgCUEgaiAJIAdBwAAgAyAGEAIgB0HAAGohBwwACwsgCCAQNwMYIAggDzcDECAIIA43AwggCCANNwMAIAhBIGohCCAAQQRqIQAgAyAMfCEDIAFBf2oiAQ0ACwsgCUHgAGokAAv4GwIMfh9/IAIpAyghBiACKQM4IQcgAikDMCEIIAIpAxAhCSACKQMgIQogAikDACELIAIpAwghDCACKQMYIQ0gACABKQMAIg43AwAgACABKQMIIg83AwggACABKQMQIhA3AxAgACAPQiCIpyANpyICaiABKQMYIhFCIIinIhJqIhMgDUIgiKciAWogEyAFc0EQdyIUQbrqv6p6aiIVIBJzQRR3IhZqIhcgDqcgC6ciBWogEKciE2oiGCALQiCIpyISaiAYIASnc0EQdyIYQefMp9AGaiIZIBNzQRR3IhNqIhogGHNBGHciGyAZaiIcIBNzQRl3Ih1qIAenIhNqIh4gB0IgiKciGGogHiAPpyAJpyIZaiARpyIfaiIgIAlCIIinIiFqICAgA3NBEHciA0Hy5rvjA2oiICAfc0EUdyIfaiIiIANzQRh3IiNzQRB3IiQgDkIgiKcgDKciA2ogEEIgiKciJWoiJiAMQiCIpyIeaiAmIARCIIinc0EQdyImQYXdntt7aiInICVzQRR3IiVqIiggJnNBGHciJiAnaiInaiIpIB1zQRR3Ih1qIiogGWogFyAUc0EYdyIrIBVqIiwgFnNBGXciFiAiaiAIpyIUaiIXIAhCIIinIhVqIBcgJnNBEHciFyAcaiIcIBZzQRR3IhZqIiIgF3NBGHciJiAcaiItIBZzQRl3Ii5qIhwgFWogJyAlc0EZdyIlIBpqIAqnIhZqIhogCkIgiKciF2ogGiArc0EQdyIaICMgIGoiIGoiIyAlc0EUdyIlaiInIBpzQRh3IisgHHNBEHciLyAgIB9zQRl3Ih8gKGogBqciGmoiICAGQiCIpyIcaiAgIBtzQRB3IhsgLGoiICAfc0EUdyIfaiIoIBtzQRh3IhsgIGoiIGoiLCAuc0EUdyIuaiIwICcgA2ogKiAkc0EYdyIkIClqIicgHXNBGXciHWoiKSACaiAbIClzQRB3IhsgLWoiKSAdc0EUdyIdaiIqIBtzQRh3IhsgKWoiKSAdc0EZdyIdaiAYaiItIBZqIC0gIiABaiAgIB9zQRl3Ih9qIiAgBWogJCAgc0EQdyIgICsgI2oiImoiIyAfc0EUdyIfaiIkICBzQRh3IiBzQRB3IisgKCAeaiAiICVzQRl3IiJqIiUgGmogJiAlc0EQdyIlICdqIiYgInNBFHciImoiJyAlc0EYdyIlICZqIiZqIiggHXNBFHciHWoiLSABaiAwIC9zQRh3Ii8gLGoiLCAuc0EZdyIuICRqIBdqIiQgE2ogJCAlc0EQdyIkIClqIiUgLnNBFHciKWoiLiAkc0EYdyIkICVqIiUgKXNBGXciKWoiMCATaiAmICJzQRl3IiIgKmogEmoiJiAcaiAmIC9zQRB3IiYgICAjaiIgaiIjICJzQRR3IiJqIiogJnNBGHciJiAwc0EQdyIvICAgH3NBGXciHyAnaiAUaiIgICFqICAgG3NBEHciGyAsaiIgIB9zQRR3Ih9qIicgG3NBGHciGyAgaiIgaiIsIClzQRR3IilqIjAgKiAeaiAtICtzQRh3IiogKGoiKCAdc0EZdyIdaiIrIBlqIBsgK3NBEHciGyAlaiIlIB1zQRR3Ih1qIisgG3NBGHciGyAlaiIlIB1zQRl3Ih1qIBZqIi0gEmogLSAuIBVqICAgH3NBGXciH2oiICADaiAqICBzQRB3IiAgJiAjaiIjaiImIB9zQRR3Ih9qIiogIHNBGHciIHNBEHciLSAnIBpqICMgInNBGXciImoiIyAUaiAkICNzQRB3IiMgKGoiJCAic0EUdyIiaiInICNzQRh3IiMgJGoiJGoiKCAdc0EUdyIdaiIuIBVqIDAgL3NBGHciLyAsaiIsIClzQRl3IikgKmogHGoiKiAYaiAqICNzQRB3IiMgJWoiJSApc0EUdyIpaiIqICNzQRh3IiMgJWoiJSApc0EZdyIpaiIwIBhqICQgInNBGXciIiAraiACaiIkICFqICQgL3NBEHciJCAgICZqIiBqIiYgInNBFHciImoiKyAkc0EYdyIkIDBzQRB3Ii8gICAfc0EZdyIfICdqIBdqIiAgBWogICAbc0EQdyIbICxqIiAgH3NBFHciH2oiJyAbc0EYdyIbICBqIiBqIiwgKXNBFHciKWoiMCArIBpqIC4gLXNBGHciKyAoaiIoIB1zQRl3Ih1qIi0gAWogGyAtc0EQdyIbICVqIiUgHXNBFHciHWoiLSAbc0EYdyIbICVqIiUgHXNBGXciHWogEmoiLiACaiAuICogE2ogICAfc0EZdyIfaiIgIB5qICsgIHNBEHciICAkICZqIiRqIiYgH3NBFHciH2oiKiAgc0EYdyIgc0EQdyIrICcgFGogJCAic0EZdyIiaiIkIBdqICMgJHNBEHciIyAoaiIkICJzQRR3IiJqIicgI3NBGHciIyAkaiIkaiIoIB1zQRR3Ih1qIi4gE2ogMCAvc0EYdyIvICxqIiwgKXNBGXciKSAqaiAhaiIqIBZqICogI3NBEHciIyAlaiIlIClzQRR3IilqIiogI3NBGHciIyAlaiIlIClzQRl3IilqIjAgFmogJCAic0EZdyIiIC1qIBlqIiQgBWogJCAvc0EQdyIkICAgJmoiIGoiJiAic0EUdyIiaiItICRzQRh3IiQgMHNBEHciLyAgIB9zQRl3Ih8gJ2ogHGoiICADaiAgIBtzQRB3IhsgLGoiICAfc0EUdyIfaiInIBtzQRh3IhsgIGoiIGoiLCApc0EUdyIpaiIwIC9zQRh3Ii8gLGoiLCApc0EZdyIpICogGGogICAfc0EZdyIfaiIgIBpqIC4gK3NBGHciKiAgc0EQdyIgICQgJmoiJGoiJiAfc0EUdyIfaiIraiAFaiIuIBJqIC4gJyAXaiAkICJzQRl3IiJqIiQgHGogIyAkc0EQdyIjICogKGoiJGoiJyAic0EUdyIiaiIoICNzQRh3IiNzQRB3IiogLSAUaiAkIB1zQRl3Ih1qIiQgFWogGyAkc0EQdyIbICVqIiQgHXNBFHciHWoiJSAbc0EYdyIbICRqIiRqIi0gKXNBFHciKWoiLiAWaiArICBzQRh3IiAgJmoiJiAfc0EZdyIfIChqICFqIiggHmogKCAbc0EQdyIbICxqIiggH3NBFHciH2oiKyAbc0EYdyIbIChqIiggH3NBGXciH2oiLCAUaiAwICQgHXNBGXciHWogAmoiJCAZaiAkICBzQRB3IiAgIyAnaiIjaiIkIB1zQRR3Ih1qIicgIHNBGHciICAsc0EQdyIsICMgInNBGXciIiAlaiABaiIjIANqICMgL3NBEHciIyAmaiIlICJzQRR3IiJqIiYgI3NBGHciIyAlaiIlaiIvIB9zQRR3Ih9qIjAgLHNBGHciLCAvaiIvIB9zQRl3Ih8gKyAcaiAlICJzQRl3IiJqIiUgIWogLiAqc0EYdyIqICVzQRB3IiUgICAkaiIgaiIkICJzQRR3IiJqIitqIAVqIi4gGmogLiAmIBdqICAgHXNBGXciHWoiICATaiAbICBzQRB3IhsgKiAtaiIgaiImIB1zQRR3Ih1qIiogG3NBGHciG3NBEHciLSAnIBhqICAgKXNBGXciIGoiJyASaiAjICdzQRB3IiMgKGoiJyAgc0EUdyIgaiIoICNzQRh3IiMgJ2oiJ2oiKSAfc0EUdyIfaiIuICFqICsgJXNBGHciISAkaiIkICJzQRl3IiIgKmogFWoiJSAeaiAlICNzQRB3IiMgL2oiJSAic0EUdyIiaiIqICNzQRh3IiMgJWoiJSAic0EZdyIiaiIrIAVqICcgIHNBGXciBSAwaiADaiIgIAJqICAgIXNBEHciISAbICZqIhtqIiAgBXNBFHciBWoiJiAhc0EYdyIhICtzQRB3IicgKCAbIB1zQRl3IhtqIBlqIh0gAWogHSAsc0EQdyIdICRqIiQgG3NBFHciG2oiKCAdc0EYdyIdICRqIiRqIisgInNBFHciImoiLCAnc0EYdyInICtqIisgInNBGXciIiAqIBxqICQgG3NBGXciHGoiGyAYaiAuIC1zQRh3IhggG3NBEHciGyAhICBqIiFqIiAgHHNBFHciHGoiJGogE2oiEyAaaiATICggFmogISAFc0EZdyIFaiIhIAJqICMgIXNBEHciAiAYIClqIhhqIiEgBXNBFHciBWoiFiACc0EYdyICc0EQdyITICYgEmogGCAfc0EZdyISaiIYIBdqIB0gGHNBEHciGCAlaiIXIBJzQRR3IhJqIhogGHNBGHciGCAXaiIXaiIdICJzQRR3Ih9qIiI2AgAgACAXIBJzQRl3IhIgLGogA2oiAyAUaiADICQgG3NBGHciFHNBEHciAyACICFqIgJqIiEgEnNBFHciEmoiFyADc0EYdyIDNgIwIAAgFiAUICBqIhQgHHNBGXciHGogAWoiASAVaiABIBhzQRB3IgEgK2oiGCAcc0EUdyIVaiIWIAFzQRh3IgEgGGoiGCAVc0EZdzYCECAAIBc2AgQgACACIAVzQRl3IgIgGmogHmoiBSAZaiAFICdzQRB3IgUgFGoiGSACc0EUdyICaiIeIAVzQRh3IgU2AjQgACAFIBlqIgU2AiAgACAiIBNzQRh3IhMgHWoiGSAfc0EZdzYCFCAAIBg2AiQgACAeNgIIIAAgATYCOCAAIAMgIWoiASASc0EZdzYCGCAAIBk2AiggACAWNgIMIAAgEzYCPCAAIAUgAnNBGXc2AhwgACABNgIsC+ERCwN/BH4CfwF+AX8EfgJ/AX4CfwF+BH8jAEHQAmsiASQAAkAgAEUNAAJAAkBBAC0AiYIFQQZ0QQAtAIiCBWoiAg0AQYCBBCEDDAELQaCBBUGAgQRBgAggAmsiAiAAIAIgAEkbIgIQBCAAIAJrIgBFDQEgAUEAKQOggQUiBDcDcCABQQApA6iBBSIFNwN4IAFBACkDsIEFIgY3A4ABIAFBACkDuIEFIgc3A4gBIAFBACkDyIEFNwOYASABQQApA9CBBTcDoAEgAUEAKQPYgQU3A6gBQQAtAIqCBSEIQQAtAImCBSEJQQApA8CBBSEKIAFBAC0AiIIFIgs6ANgBIAEgCjcDkAEgAUEAKQPggQU3A7ABIAFBACkD6IEFNwO4ASABQQApA/CBBTcDwAEgAUEAKQP4gQU3A8gBIAFBACkDgIIFNwPQASABIAggCUVyQQJyIgg6ANkBIAEgBzcD+AEgASAGNwPwASABIAU3A+gBIAEgBDcD4AEgASABQeABaiABQZgBaiALIAogCEH/AXEQAiABKQMgIQQgASkDACEFIAEpAyghBiABKQMIIQcgASkDMCEMIAEpAxAhDSABKQM4IQ4gASkDGCEPIAoQBUEAQgA3A4CCBUEAQgA3A/iBBUEAQgA3A/CBBUEAQgA3A+iBBUEAQgA3A+CBBUEAQgA3A9iBBUEAQgA3A9CBBUEAQgA3A8iBBUEAQQApA4CBBTcDoIEFQQBBACkDiIEFNwOogQVBAEEAKQOQgQU3A7CBBUEAQQApA5iBBTcDuIEFQQAtAJCCBSIJQQV0IgggDiAPhTcDqYIFIAggDCANhTcDoYIFIAggBiAHhTcDmYIFIAggBCAFhTcDkYIFQQAgCUEBajoAkIIFQQBBACkDwIEFQgF8NwPAgQVBAEEAOwGIggUgAkGAgQRqIQMLAkAgAEGBCEkNAEEAKQPAgQUhBCABQShqIRADQCAEQgqGIQpCASAAQQFyrXlCP4WGpyECA0AgAiIRQQF2IQIgCiARQX9qrYNCAFINAAsgEUEKdq0hEgJAAkAgEUGACEsNACABQQA7AdgBIAFCADcD0AEgAUIANwPIASABQgA3A8ABIAFCADcDuAEgAUIANwOwASABQgA3A6gBIAFCADcDoAEgAUIANwOYASABQQApA4CBBTcDcCABQQApA4iBBTcDeCABQQApA5CBBTcDgAEgAUEALQCKggU6ANoBIAFBACkDmIEFNwOIASABIAQ3A5ABIAFB8ABqIAMgERAEIAEgASkDcCIENwMAIAEgASkDeCIFNwMIIAEgASkDgAEiBjcDECABIAEpA4gBIgc3AxggASABKQOYATcDKCABIAEpA6ABNwMwIAEgASkDqAE3AzggAS0A2gEhAiABLQDZASEIIAEpA5ABIQogASABLQDYASIJOgBoIAEgCjcDICABIAEpA7ABNwNAIAEgASkDuAE3A0ggASABKQPAATcDUCABIAEpA8gBNwNYIAEgASkD0AE3A2AgASACIAhFckECciICOgBpIAEgBzcDuAIgASAGNwOwAiABIAU3A6gCIAEgBDcDoAIgAUHgAWogAUGgAmogECAJIAogAkH/AXEQAiABKQOAAiEEIAEpA+ABIQUgASkDiAIhBiABKQPoASEHIAEpA5ACIQwgASkD8AEhDSABKQOYAiEOIAEpA/gBIQ8gChAFQQAtAJCCBSIIQQV0IgIgDiAPhTcDqYIFIAIgDCANhTcDoYIFIAIgBiAHhTcDmYIFIAIgBCAFhTcDkYIFQQAgCEEBajoAkIIFDAELAkACQCADIBEgBEEALQCKggUiAiABEAYiE0ECSw0AIAEpAxghCiABKQMQIQQgASkDCCEFIAEpAwAhBgwBCyACQQRyIRRBACkDmIEFIQ1BACkDkIEFIQ5BACkDiIEFIQ9BACkDgIEFIRUDQCATQX5qIhZBAXYiF0EBaiIYQQNxIQlBACELAkACQCAWQQZJDQAgGEH8////B3EhGUEAIQsgAUHIAmohAiABIQgDQCACIAg2AgAgAkEMaiAIQcABajYCACACQQhqIAhBgAFqNgIAIAJBBGogCEHAAGo2AgAgCEGAAmohCCACQRBqIQIgGSALQQRqIgtHDQALIAlFDQELIAEgC0EGdGohAiABQcgCaiALQQJ0aiEIA0AgCCACNgIAIAJBwABqIQIgCEEEaiEIIAlBf2oiCQ0ACwsgAUHIAmohCCABQaACaiECIBghCQNAIAgoAgAhCyABIA03A/gBIAEgDjcD8AEgASAPNwPoASABIBU3A+ABIAFB8ABqIAFB4AFqIAtBwABCACAUEAIgASkDkAEhCiABKQNwIQQgASkDmAEhBSABKQN4IQYgASkDoAEhByABKQOAASEMIAJBGGogASkDqAEgASkDiAGFNwMAIAJBEGogByAMhTcDACACQQhqIAUgBoU3AwAgAiAKIASFNwMAIAJBIGohAiAIQQRqIQggCUF/aiIJDQALAkACQCATIBZBfnFBAmpLDQAgGCETDAELIAFBoAJqIBhBBXRqIgIgASAYQQZ0aiIIKQMANwMAIAIgCCkDCDcDCCACIAgpAxA3AxAgAiAIKQMYNwMYIBdBAmohEwsgASABKQOgAiIGNwMAIAEgASkDqAIiBTcDCCABIAEpA7ACIgQ3AxAgASABKQO4AiIKNwMYIBNBAksNAAsLIAEpAyAhByABKQMoIQwgASkDMCENIAEpAzghDkEAKQPAgQUQBUEALQCQggUiCEEFdCICIAo3A6mCBSACIAQ3A6GCBSACIAU3A5mCBSACIAY3A5GCBUEAIAhBAWo6AJCCBUEAKQPAgQUgEkIBiHwQBUEALQCQggUiCEEFdCICIA43A6mCBSACIA03A6GCBSACIAw3A5mCBSACIAc3A5GCBUEAIAhBAWo6AJCCBQtBAEEAKQPAgQUgEnwiBDcDwIEFIAMgEWohAyAAIBFrIgBBgAhLDQALIABFDQELQaCBBSADIAAQBEEAKQPAgQUQBQsgAUHQAmokAAvsBgIJfwF+IwBBwABrIgMkAAJAAkAgAC0AaCIERQ0AAkBBwAAgBGsiBSACIAUgAkkbIgZFDQAgBkEDcSEHQQAhCAJAAkAgBkEESQ0AIAAgBGohCSAGQXxxIQpBACEIA0AgCSAIaiIFQShqIAEgCGoiCy0AADoAACAFQSlqIAtBAWotAAA6AAAgBUEqaiALQQJqLQAAOgAAIAVBK2ogC0EDai0AADoAACAKIAhBBGoiCEcNAAsgB0UNAQsgASAIaiEFIAggBGogAGpBKGohCANAIAggBS0AADoAACAFQQFqIQUgCEEBaiEIIAdBf2oiBw0ACwsgAC0AaCEECyAAIAQgBmoiBzoAaCABIAZqIQECQCACIAZrIgINAEEAIQIMAgsgAyAAIABBKGpBwAAgACkDICAALQBqIABB6QBqIgUtAAAiCEVyEAIgACADKQMgIAMpAwCFNwMAIAAgAykDKCADKQMIhTcDCCAAIAMpAzAgAykDEIU3AxAgACADKQM4IAMpAxiFNwMYIABBADoAaCAFIAhBAWo6AAAgAEIANwNgIABCADcDWCAAQgA3A1AgAEIANwNIIABCADcDQCAAQgA3AzggAEIANwMwIABCADcDKAtBACEHIAJBwQBJDQAgAEHpAGoiCC0AACEFIAAtAGohCyAAKQMgIQwDQCADIAAgAUHAACAMIAsgBUH/AXFFckH/AXEQAiAAIAMpAyAgAykDAIU3AwAgACADKQMoIAMpAwiFNwMIIAAgAykDMCADKQMQhTcDECAAIAMpAzggAykDGIU3AxggCCAFQQFqIgU6AAAgAUHAAGohASACQUBqIgJBwABLDQALCwJAQcAAIAdB/wFxIgZrIgUgAiAFIAJJGyIKRQ0AIApBA3EhC0EAIQUCQAJAIApBBEkNACAAIAZqIQcgCkH8AHEhCUEAIQUDQCAHIAVqIgJBKGogASAFaiIILQAAOgAAIAJBKWogCEEBai0AADoAACACQSpqIAhBAmotAAA6AAAgAkEraiAIQQNqLQAAOgAAIAkgBUEEaiIFRw0ACyALRQ0BCyABIAVqIQEgBSAGaiAAakEoaiEFA0AgBSABLQAAOgAAIAFBAWohASAFQQFqIQUgC0F/aiILDQALCyAALQBoIQcLIAAgByAKajoAaCADQcAAaiQAC94DBAV/A34FfwZ+IwBB0AFrIgEkAAJAIAB7pyICQQAtAJCCBSIDTw0AQQAtAIqCBUEEciEEIAFBKGohBUEAKQOYgQUhAEEAKQOQgQUhBkEAKQOIgQUhB0EAKQOAgQUhCCADIQkDQCABIAA3AxggASAGNwMQIAEgBzcDCCABIAg3AwAgASAJQQV0IglB0YEFaiIKKQMANwMoIAEgCUHZgQVqIgspAwA3AzAgASAJQeGBBWoiDCkDADcDOCABIAlB6YEFaiINKQMANwNAIAEgCUHxgQVqKQMANwNIIAEgCUH5gQVqKQMANwNQIAEgCUGBggVqKQMANwNYIAlBiYIFaikDACEOIAFBwAA6AGggASAONwNgIAFCADcDICABIAQ6AGkgASAANwOIASABIAY3A4ABIAEgBzcDeCABIAg3A3AgAUGQAWogAUHwAGogBUHAAEIAIARB/wFxEAIgASkDsAEhDiABKQOQASEPIAEpA7gBIRAgASkDmAEhESABKQPAASESIAEpA6ABIRMgDSABKQPIASABKQOoAYU3AwAgDCASIBOFNwMAIAsgECARhTcDACAKIA4gD4U3AwAgA0F/aiIDQf8BcSIJIAJLDQALQQAgAzoAkIIFCyABQdABaiQAC9AIBQF/BH4BfwF+BX8jAEHgAmsiBSQAAkACQCABQYAISw0AIAUgADYC/AEgAUUNAQJAIAFBgAhHDQBBASEBIAVB/AFqQQFBECACQQEgA0EBQQIgBBABDAILIAUgAzoAaiAFQgA3A2AgBUIANwNYIAVCADcDUCAFQgA3A0ggBUIANwNAIAVCADcDOCAFQgA3AzAgBUIANwMoIAUgAjcDICAFQQA7AWggBUEAKQOAgQU3AwAgBUEAKQOIgQU3AwggBUEAKQOQgQU3AxAgBUEAKQOYgQU3AxggBSAAIAEQBCAFIAUpAwAiBjcDiAEgBSAFKQMIIgc3A5ABIAUgBSkDECIINwOYASAFIAUpAxgiCTcDoAEgBSAFKQMoNwOwASAFIAUpAzA3A7gBIAUgBSkDODcDwAEgBS0AaiEAIAUtAGkhCiAFKQMgIQIgBSAFLQBoIgE6APABIAUgAjcDqAEgBSAFKQNANwPIASAFIAUpA0g3A9ABIAUgBSkDUDcD2AEgBSAFKQNYNwPgASAFIAUpA2A3A+gBIAUgACAKRXJBAnIiADoA8QEgBSAJNwOYAiAFIAg3A5ACIAUgBzcDiAIgBSAGNwOAAiAFQaACaiAFQYACaiAFQbABaiABIAIgAEH/AXEQAiAFKQPAAiECIAUpA6ACIQYgBSkDyAIhByAFKQOoAiEIIAUpA9ACIQkgBSkDsAIhCyAEIAUpA9gCIAUpA7gChTcDGCAEIAkgC4U3AxAgBCAHIAiFNwMIIAQgAiAGhTcDAEEBIQEMAQsgAEIBIAFBf2pBCnZBAXKteSIGQj+FhiIHp0EKdCIKIAIgAyAFEAYhDCAAIApqIAEgCmsgByACfCADIAVBIEHAACAGQj9RG2oQBiEAAkAgDEEBRw0AIAQgBSkDADcDACAEIAUpAwg3AwggBCAFKQMQNwMQIAQgBSkDGDcDGCAEIAUpAyA3AyAgBCAFKQMoNwMoIAQgBSkDMDcDMCAEIAUpAzg3AzhBAiEBDAELQQAhAUEAIQoCQCAAIAxqIg1BAkkNACANQX5qIg5BAXZBAWoiAUEDcSEMQQAhDwJAAkAgDkEGSQ0AIAFB/P///wdxIRBBACEPIAVBiAFqIQAgBSEKA0AgACAKNgIAIABBDGogCkHAAWo2AgAgAEEIaiAKQYABajYCACAAQQRqIApBwABqNgIAIApBgAJqIQogAEEQaiEAIBAgD0EEaiIPRw0ACyAMRQ0BCyAFIA9BBnRqIQAgBUGIAWogD0ECdGohCgNAIAogADYCACAAQcAAaiEAIApBBGohCiAMQX9qIgwNAAsLIA5BfnFBAmohCgsgBUGIAWogAUEBQgBBACADQQRyQQBBACAEEAEgDSAKTQ0AIAQgAUEFdGoiACAFIAFBBnRqIgopAwA3AwAgACAKKQMINwMIIAAgCikDEDcDECAAIAopAxg3AxggAUEBaiEBCyAFQeACaiQAIAEL6A8IAn8EfgF/AX4EfwR+An8EfiMAQfABayIBJAACQCAARQ0AAkBBAC0AkIIFIgINACABQQApA6CBBSIDNwMAIAFBACkDqIEFIgQ3AwggAUEAKQOwgQUiBTcDECABQQApA7iBBSIGNwMYIAFBACkDyIEFNwMoIAFBACkD0IEFNwMwIAFBACkD2IEFNwM4QQAtAIqCBSECQQAtAImCBSEHQQApA8CBBSEIIAFBAC0AiIIFIgk6AGggASAINwMgIAFBACkD4IEFNwNAIAFBACkD6IEFNwNIIAFBACkD8IEFNwNQIAFBACkD+IEFNwNYIAFBACkDgIIFNwNgIAEgAiAHRXIiAkECcjoAaSABQShqIQpCACEIQYCBBCELIAJBCnJB/wFxIQwDQCABQbABaiABIAogCUH/AXEgCCAMEAIgASABKQPQASINIAEpA7ABhTcDcCABIAEpA9gBIg4gASkDuAGFNwN4IAEgASkD4AEiDyABKQPAAYU3A4ABIAEgASkD6AEiECAGhTcDqAEgASAPIAWFNwOgASABIA4gBIU3A5gBIAEgDSADhTcDkAEgASAQIAEpA8gBhTcDiAECQAJAIABBwAAgAEHAAEkbIhFBB3EiEg0AIAFB8ABqIQIgCyEHIBEhEgwBCyABQfAAaiECIAshBwNAIAcgAi0AADoAACAHQQFqIQcgAkEBaiECIBJBf2oiEg0ACyARQfgAcSESCwJAIABBCEkNAANAIAcgAikAADcAACAHQQhqIQcgAkEIaiECIBJBeGoiEg0ACwsgCEIBfCEIIAsgEWohCyAAIBFrIgANAAwCCwsCQAJAAkBBAC0AiYIFIgdBAC0AiIIFIgtyQf8BcUUNACABIAs6AGggAUEAKQOAggU3A2AgAUEAKQP4gQU3A1ggAUEAKQPwgQU3A1AgAUEAKQPogQU3A0ggAUEAKQPggQU3A0AgAUEAKQPYgQU3AzggAUEAKQPQgQU3AzAgAUEAKQPIgQU3AyggAUEAKQPAgQUiCDcDICABQQApA7iBBSIDNwMYIAFBACkDsIEFIgQ3AxAgAUEAKQOogQUiBTcDCCABQQApA6CBBSIGNwMAIAFBAC0AioIFIhIgB0H/AXFFckECciIJOgBpIBJBBHIhEkEAKQOYgQUhDUEAKQOQgQUhDkEAKQOIgQUhD0EAKQOAgQUhEAwBC0HAACELIAFBwAA6AGhCACEIIAFCADcDICABQQApA5iBBSINNwMYIAFBACkDkIEFIg43AxAgAUEAKQOIgQUiDzcDCCABQQApA4CBBSIQNwMAIAFBAC0AioIFQQRyIhI6AGkgASACQX5qIgJBBXQiBykDyYIFNwNgIAEgBykDwYIFNwNYIAEgBykDuYIFNwNQIAEgBykDsYIFNwNIIAEgBykDqYIFNwNAIAEgBykDoYIFNwM4IAEgBykDmYIFNwMwIAEgBykDkYIFNwMoIBAhBiAPIQUgDiEEIA0hAyASIQkgAkUNAQsgAkF/aiIHQQV0IhEpA5GCBSETIBEpA5mCBSEUIBEpA6GCBSEVIBEpA6mCBSEWIAEgAzcDiAEgASAENwOAASABIAU3A3ggASAGNwNwIAFBsAFqIAFB8ABqIAFBKGoiESALQf8BcSAIIAlB/wFxEAIgASASOgBpIAFBwAA6AGggASAWNwNAIAEgFTcDOCABIBQ3AzAgASATNwMoIAFCADcDICABIA03AxggASAONwMQIAEgDzcDCCABIBA3AwAgASABKQPoASABKQPIAYU3A2AgASABKQPgASABKQPAAYU3A1ggASABKQPYASABKQO4AYU3A1AgASABKQPQASABKQOwAYU3A0ggB0UNACACQQV0QemBBWohAiASQf8BcSELA0AgAkFoaikDACEIIAJBcGopAwAhAyACQXhqKQMAIQQgAikDACEFIAEgDTcDiAEgASAONwOAASABIA83A3ggASAQNwNwIAFBsAFqIAFB8ABqIBFBwABCACALEAIgASASOgBpIAFBwAA6AGggASAFNwNAIAEgBDcDOCABIAM3AzAgASAINwMoIAFCADcDICABIA03AxggASAONwMQIAEgDzcDCCABIBA3AwAgASABKQPoASABKQPIAYU3A2AgASABKQPgASABKQPAAYU3A1ggASABKQPYASABKQO4AYU3A1AgASABKQPQASABKQOwAYU3A0ggAkFgaiECIAdBf2oiBw0ACwsgAUEoaiEJQgAhCEGAgQQhCyASQQhyQf8BcSEKA0AgAUGwAWogASAJQcAAIAggChACIAEgASkD0AEiAyABKQOwAYU3A3AgASABKQPYASIEIAEpA7gBhTcDeCABIAEpA+ABIgUgASkDwAGFNwOAASABIAEpA+gBIgYgDYU3A6gBIAEgBSAOhTcDoAEgASAEIA+FNwOYASABIAMgEIU3A5ABIAEgBiABKQPIAYU3A4gBAkACQCAAQcAAIABBwABJGyIRQQdxIhINACABQfAAaiECIAshByARIRIMAQsgAUHwAGohAiALIQcDQCAHIAItAAA6AAAgB0EBaiEHIAJBAWohAiASQX9qIhINAAsgEUH4AHEhEgsCQCAAQQhJDQADQCAHIAIpAAA3AAAgB0EIaiEHIAJBCGohAiASQXhqIhINAAsLIAhCAXwhCCALIBFqIQsgACARayIADQALCyABQfABaiQAC6cCAQR+AkACQCAAQSBGDQBCq7OP/JGjs/DbACEBQv+kuYjFkdqCm38hAkLy5rvjo6f9p6V/IQNC58yn0NbQ67O7fyEEQQAhAAwBC0EAKQOYgQQhAUEAKQOQgQQhAkEAKQOIgQQhA0EAKQOAgQQhBEEQIQALQQAgADoAioIFQQBCADcDgIIFQQBCADcD+IEFQQBCADcD8IEFQQBCADcD6IEFQQBCADcD4IEFQQBCADcD2IEFQQBCADcD0IEFQQBCADcDyIEFQQBCADcDwIEFQQAgATcDuIEFQQAgAjcDsIEFQQAgAzcDqIEFQQAgBDcDoIEFQQAgATcDmIEFQQAgAjcDkIEFQQAgAzcDiIEFQQAgBDcDgIEFQQBBADoAkIIFQQBBADsBiIIFCwYAIAAQAwsGACAAEAcLBgBBgIEFC68CAQR+AkACQCABQSBGDQBCq7OP/JGjs/DbACEDQv+kuYjFkdqCm38hBELy5rvjo6f9p6V/IQVC58yn0NbQ67O7fyEGQQAhAQwBC0EAKQOYgQQhA0EAKQOQgQQhBEEAKQOIgQQhBUEAKQOAgQQhBkEQIQELQQAgAToAioIFQQBCADcDgIIFQQBCADcD+IEFQQBCADcD8IEFQQBCADcD6IEFQQBCADcD4IEFQQBCADcD2IEFQQBCADcD0IEFQQBCADcDyIEFQQBCADcDwIEFQQAgAzcDuIEFQQAgBDcDsIEFQQAgBTcDqIEFQQAgBjcDoIEFQQAgAzcDmIEFQQAgBDcDkIEFQQAgBTcDiIEFQQAgBjcDgIEFQQBBADoAkIIFQQBBADsBiIIFIAAQAyACEAcLCwwBAEGAgAQLBHgHAAA=";
var hash$h = "558f85b5";
var wasmJson$h = {
	name: name$h,
	data: data$h,
	hash: hash$h
};

const mutex$i = new Mutex();
let wasmCache$i = null;
function validateBits$2(bits) {
    if (!Number.isInteger(bits) || bits < 8 || bits % 8 !== 0) {
        return new Error("Invalid variant! Valid values: 8, 16, ...");
    }
    return null;
}
/**
 * Calculates BLAKE3 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param bits Number of output bits, which has to be a number
 *             divisible by 8. Defaults to 256.
 * @param key Optional key (string, Buffer or TypedArray). Length should be 32 bytes.
 * @returns Computed hash as a hexadecimal string
 */
function blake3(data, bits = 256, key = null) {
    if (validateBits$2(bits)) {
        return Promise.reject(validateBits$2(bits));
    }
    let keyBuffer = null;
    let initParam = 0; // key is empty by default
    if (key !== null) {
        keyBuffer = getUInt8Buffer(key);
        if (keyBuffer.length !== 32) {
            return Promise.reject(new Error("Key length must be exactly 32 bytes"));
        }
        initParam = 32;
    }
    const hashLength = bits / 8;
    const digestParam = hashLength;
    if (wasmCache$i === null || wasmCache$i.hashLength !== hashLength) {
        return lockedCreate(mutex$i, wasmJson$h, hashLength).then((wasm) => {
            wasmCache$i = wasm;
            if (initParam === 32) {
                wasmCache$i.writeMemory(keyBuffer);
            }
            return wasmCache$i.calculate(data, initParam, digestParam);
        });
    }
    try {
        if (initParam === 32) {
            wasmCache$i.writeMemory(keyBuffer);
        }
        const hash = wasmCache$i.calculate(data, initParam, digestParam);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new BLAKE3 hash instance
 * @param bits Number of output bits, which has to be a number
 *             divisible by 8. Defaults to 256.
 * @param key Optional key (string, Buffer or TypedArray). Length should be 32 bytes.
 */
function createBLAKE3(bits = 256, key = null) {
    if (validateBits$2(bits)) {
        return Promise.reject(validateBits$2(bits));
    }
    let keyBuffer = null;
    let initParam = 0; // key is empty by default
    if (key !== null) {
        keyBuffer = getUInt8Buffer(key);
        if (keyBuffer.length !== 32) {
            return Promise.reject(new Error("Key length must be exactly 32 bytes"));
        }
        initParam = 32;
    }
    const outputSize = bits / 8;
    const digestParam = outputSize;
    return WASMInterface(wasmJson$h, outputSize).then((wasm) => {
        if (initParam === 32) {
            wasm.writeMemory(keyBuffer);
        }
        wasm.init(initParam);
        const obj = {
            init: initParam === 32
                ? () => {
                    wasm.writeMemory(keyBuffer);
                    wasm.init(initParam);
                    return obj;
                }
                : () => {
                    wasm.init(initParam);
                    return obj;
                },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType, digestParam),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 64,
            digestSize: outputSize,
        };
        return obj;
    });
}

var name$g = "crc32";
var data$g = "AGFzbQEAAAABEQRgAAF/YAF/AGAAAGACf38AAwgHAAEBAQIAAwUEAQECAgYPAn8BQYCABAt/AEGAgAQLB4IBCQZtZW1vcnkCAA9fX3N0YWNrX3BvaW50ZXIDAA5IYXNoX0dldEJ1ZmZlcgAACUhhc2hfSW5pdAACC0hhc2hfVXBkYXRlAAMKSGFzaF9GaW5hbAAEDUhhc2hfR2V0U3RhdGUABQ5IYXNoX0NhbGN1bGF0ZQAGClNUQVRFX1NJWkUDAQrNBwcGAEGAgQQLrgMBA39BgIEFIQFBACECA0AgAUEAQQBBAEEAQQBBAEEAQQAgAkEBcWsgAHEgAkEBdnMiA0EBcWsgAHEgA0EBdnMiA0EBcWsgAHEgA0EBdnMiA0EBcWsgAHEgA0EBdnMiA0EBcWsgAHEgA0EBdnMiA0EBcWsgAHEgA0EBdnMiA0EBcWsgAHEgA0EBdnMiA0EBcWsgAHEgA0EBdnM2AgAgAUEEaiEBIAJBAWoiAkGAAkcNAAtBACEAA0AgAEGEiQVqIABBhIEFaigCACICQf8BcUECdCgCgIEFIAJBCHZzIgI2AgAgAEGEkQVqIAJB/wFxQQJ0KAKAgQUgAkEIdnMiAjYCACAAQYSZBWogAkH/AXFBAnQoAoCBBSACQQh2cyICNgIAIABBhKEFaiACQf8BcUECdCgCgIEFIAJBCHZzIgI2AgAgAEGEqQVqIAJB/wFxQQJ0KAKAgQUgAkEIdnMiAjYCACAAQYSxBWogAkH/AXFBAnQoAoCBBSACQQh2cyICNgIAIABBhLkFaiACQf8BcUECdCgCgIEFIAJBCHZzNgIAIABBBGoiAEH8B0cNAAsLJwACQEEAKAKAwQUgAEYNACAAEAFBACAANgKAwQULQQBBADYChMEFC+kCAQN/QQAoAoTBBUF/cyEBQYCBBCECAkAgAEEISQ0AQYCBBCECA0AgAkEEaigCACIDQQ52QfwHcSgCgIkFIANBFnZB/AdxKAKAgQVzIANBBnZB/AdxKAKAkQVzIANB/wFxQQJ0KAKAmQVzIAIoAgAgAXMiAUEWdkH8B3EoAoChBXMgAUEOdkH8B3EoAoCpBXMgAUEGdkH8B3EoAoCxBXMgAUH/AXFBAnQoAoC5BXMhASACQQhqIQIgAEF4aiIAQQdLDQALCwJAIABFDQACQAJAIABBAXENACAAIQMMAQsgAUH/AXEgAi0AAHNBAnQoAoCBBSABQQh2cyEBIAJBAWohAiAAQX9qIQMLIABBAUYNAANAIAFB/wFxIAItAABzQQJ0KAKAgQUgAUEIdnMiAUH/AXEgAkEBai0AAHNBAnQoAoCBBSABQQh2cyEBIAJBAmohAiADQX5qIgMNAAsLQQAgAUF/czYChMEFCykBAX9BAEEAKAKEwQUiAEH/gfwHcUEIeCAAQRh4Qf+B/AdxcjYCgIEECwYAQYTBBQtQAAJAQQAoAoDBBSABRg0AIAEQAUEAIAE2AoDBBQtBAEEANgKEwQUgABADQQBBACgChMEFIgFB/4H8B3FBCHggAUEYeEH/gfwHcXI2AoCBBAsLDAEAQYCABAsEBAAAAA==";
var hash$g = "e5d47522";
var wasmJson$g = {
	name: name$g,
	data: data$g,
	hash: hash$g
};

const mutex$h = new Mutex();
let wasmCache$h = null;
function validatePoly(poly) {
    if (!Number.isInteger(poly) || poly < 0 || poly > 0xffffffff) {
        return new Error("Polynomial must be a valid 32-bit long unsigned integer");
    }
    return null;
}
/**
 * Calculates CRC-32 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param polynomial Input polynomial (defaults to 0xedb88320, for CRC32C use 0x82f63b78)
 * @returns Computed hash as a hexadecimal string
 */
function crc32(data, polynomial = 0xedb88320) {
    if (validatePoly(polynomial)) {
        return Promise.reject(validatePoly(polynomial));
    }
    if (wasmCache$h === null) {
        return lockedCreate(mutex$h, wasmJson$g, 4).then((wasm) => {
            wasmCache$h = wasm;
            return wasmCache$h.calculate(data, polynomial);
        });
    }
    try {
        const hash = wasmCache$h.calculate(data, polynomial);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new CRC-32 hash instance
 * @param polynomial Input polynomial (defaults to 0xedb88320, for CRC32C use 0x82f63b78)
 */
function createCRC32(polynomial = 0xedb88320) {
    if (validatePoly(polynomial)) {
        return Promise.reject(validatePoly(polynomial));
    }
    return WASMInterface(wasmJson$g, 4).then((wasm) => {
        wasm.init(polynomial);
        const obj = {
            init: () => {
                wasm.init(polynomial);
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 4,
            digestSize: 4,
        };
        return obj;
    });
}

var name$f = "crc64";
var data$f = "AGFzbQEAAAABDANgAAF/YAAAYAF/AAMHBgABAgEAAQUEAQECAgYPAn8BQYCABAt/AEGAgAQLB4IBCQZtZW1vcnkCAA9fX3N0YWNrX3BvaW50ZXIDAA5IYXNoX0dldEJ1ZmZlcgAACUhhc2hfSW5pdAABC0hhc2hfVXBkYXRlAAIKSGFzaF9GaW5hbAADDUhhc2hfR2V0U3RhdGUABA5IYXNoX0NhbGN1bGF0ZQAFClNUQVRFX1NJWkUDAQrSBwYGAEGAgQQL4QMDAX4BfwJ+AkBBACkDgIEGQQApA4CBBCIAUQ0AQYCBBSEBQgAhAgNAIAFCAEIAQgBCAEIAQgBCAEIAIAJCAYN9IACDIAJCAYiFIgNCAYN9IACDIANCAYiFIgNCAYN9IACDIANCAYiFIgNCAYN9IACDIANCAYiFIgNCAYN9IACDIANCAYiFIgNCAYN9IACDIANCAYiFIgNCAYN9IACDIANCAYiFIgNCAYN9IACDIANCAYiFNwMAIAFBCGohASACQgF8IgJCgAJSDQALQQAhAQNAIAFBiJEFaiABQYiBBWopAwAiAqdB/wFxQQN0KQOAgQUgAkIIiIUiAjcDACABQYihBWogAqdB/wFxQQN0KQOAgQUgAkIIiIUiAjcDACABQYixBWogAqdB/wFxQQN0KQOAgQUgAkIIiIUiAjcDACABQYjBBWogAqdB/wFxQQN0KQOAgQUgAkIIiIUiAjcDACABQYjRBWogAqdB/wFxQQN0KQOAgQUgAkIIiIUiAjcDACABQYjhBWogAqdB/wFxQQN0KQOAgQUgAkIIiIUiAjcDACABQYjxBWogAqdB/wFxQQN0KQOAgQUgAkIIiIU3AwAgAUEIaiIBQfgPRw0AC0EAIAA3A4CBBgtBAEIANwOIgQYL9QICAX4Cf0EAKQOIgQZCf4UhAUGAgQQhAgJAIABBCEkNAEGAgQQhAgNAIAIpAwAgAYUiAUIwiKdB/wFxQQN0KQOAkQUgAUI4iKdBA3QpA4CBBYUgAUIoiKdB/wFxQQN0KQOAoQWFIAFCIIinQf8BcUEDdCkDgLEFhSABpyIDQRV2QfgPcSkDgMEFhSADQQ12QfgPcSkDgNEFhSADQQV2QfgPcSkDgOEFhSADQf8BcUEDdCkDgPEFhSEBIAJBCGohAiAAQXhqIgBBB0sNAAsLAkAgAEUNAAJAAkAgAEEBcQ0AIAAhAwwBCyABQv8BgyACMQAAhadBA3QpA4CBBSABQgiIhSEBIAJBAWohAiAAQX9qIQMLIABBAUYNAANAIAFC/wGDIAIxAACFp0EDdCkDgIEFIAFCCIiFIgFC/wGDIAJBAWoxAACFp0EDdCkDgIEFIAFCCIiFIQEgAkECaiECIANBfmoiAw0ACwtBACABQn+FNwOIgQYLZQEBfkEAQQApA4iBBiIAQjiGIABCgP4Dg0IohoQgAEKAgPwHg0IYhiAAQoCAgPgPg0IIhoSEIABCCIhCgICA+A+DIABCGIhCgID8B4OEIABCKIhCgP4DgyAAQjiIhISENwOAgQQLBgBBiIEGCwIACwsMAQBBgIAECwQIAAAA";
var hash$f = "c112163d";
var wasmJson$f = {
	name: name$f,
	data: data$f,
	hash: hash$f
};

const mutex$g = new Mutex();
let wasmCache$g = null;
const polyBuffer = new Uint8Array(8);
function parsePoly(poly) {
    const errText = "Polynomial must be provided as a 16 char long hex string";
    if (typeof poly !== "string" || poly.length !== 16) {
        return { hi: 0, lo: 0, err: new Error(errText) };
    }
    const hi = Number(`0x${poly.slice(0, 8)}`);
    const lo = Number(`0x${poly.slice(8)}`);
    if (Number.isNaN(hi) || Number.isNaN(lo)) {
        return { hi, lo, err: new Error(errText) };
    }
    return { hi, lo, err: null };
}
function writePoly(arr, lo, hi) {
    // write in little-endian format
    const buffer = new DataView(arr);
    buffer.setUint32(0, lo, true);
    buffer.setUint32(4, hi, true);
}
/**
 * Calculates CRC-64 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param polynomial Input polynomial (defaults to 'c96c5795d7870f42' - ECMA)
 * @returns Computed hash as a hexadecimal string
 */
function crc64(data, polynomial = "c96c5795d7870f42") {
    const { hi, lo, err } = parsePoly(polynomial);
    if (err !== null) {
        return Promise.reject(err);
    }
    if (wasmCache$g === null) {
        return lockedCreate(mutex$g, wasmJson$f, 8).then((wasm) => {
            wasmCache$g = wasm;
            writePoly(polyBuffer.buffer, lo, hi);
            wasmCache$g.writeMemory(polyBuffer);
            return wasmCache$g.calculate(data);
        });
    }
    try {
        writePoly(polyBuffer.buffer, lo, hi);
        wasmCache$g.writeMemory(polyBuffer);
        const hash = wasmCache$g.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new CRC-64 hash instance
 * @param polynomial Input polynomial (defaults to 'c96c5795d7870f42' - ECMA)
 */
function createCRC64(polynomial = "c96c5795d7870f42") {
    const { hi, lo, err } = parsePoly(polynomial);
    if (err !== null) {
        return Promise.reject(err);
    }
    return WASMInterface(wasmJson$f, 8).then((wasm) => {
        const instanceBuffer = new Uint8Array(8);
        writePoly(instanceBuffer.buffer, lo, hi);
        wasm.writeMemory(instanceBuffer);
        wasm.init();
        const obj = {
            init: () => {
                wasm.writeMemory(instanceBuffer);
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 8,
            digestSize: 8,
        };
        return obj;
    });
}

var name$e = "md4";
var data$e = "AGFzbQEAAAABEgRgAAF/YAAAYAF/AGACf38BfwMIBwABAgMBAAIFBAEBAgIGDwJ/AUGAgAQLfwBBgIAECweCAQkGbWVtb3J5AgAPX19zdGFja19wb2ludGVyAwAOSGFzaF9HZXRCdWZmZXIAAAlIYXNoX0luaXQAAQtIYXNoX1VwZGF0ZQACCkhhc2hfRmluYWwABA1IYXNoX0dldFN0YXRlAAUOSGFzaF9DYWxjdWxhdGUABgpTVEFURV9TSVpFAwEK5xYHBgBBgIEECy0AQQBC/rnrxemOlZkQNwKQgQVBAEKBxpS6lvHq5m83AoiBBUEAQgA3AoCBBQvKBQEHf0EAQQAoAoCBBSIBIABqQf////8BcSICNgKAgQVBAEEAKAKEgQUgAiABSWogAEEddmo2AoSBBQJAAkACQAJAAkACQCABQT9xIgMNAEGAgQQhBAwBCyAAQcAAIANrIgVJDQEgBUEDcSEGQQAhAQJAAkAgA0E/c0EDSQ0AIANBgIEFaiEEIAVB/ABxIQdBACEBA0AgBCABaiICQRhqIAFBgIEEai0AADoAACACQRlqIAFBgYEEai0AADoAACACQRpqIAFBgoEEai0AADoAACACQRtqIAFBg4EEai0AADoAACAHIAFBBGoiAUcNAAsgBkUNAQsgA0GYgQVqIQIDQCACIAFqIAFBgIEEai0AADoAACABQQFqIQEgBkF/aiIGDQALC0GYgQVBwAAQAxogACAFayEAIAVBgIEEaiEECyAAQcAATw0BIAAhAgwCCyAARQ0CIABBA3EhBkEAIQECQCAAQQRJDQAgA0GAgQVqIQQgAEF8cSEAQQAhAQNAIAQgAWoiAkEYaiABQYCBBGotAAA6AAAgAkEZaiABQYGBBGotAAA6AAAgAkEaaiABQYKBBGotAAA6AAAgAkEbaiABQYOBBGotAAA6AAAgACABQQRqIgFHDQALIAZFDQMLIANBmIEFaiECA0AgAiABaiABQYCBBGotAAA6AAAgAUEBaiEBIAZBf2oiBg0ADAMLCyAAQT9xIQIgBCAAQUBxEAMhBAsgAkUNACACQQNxIQZBACEBAkAgAkEESQ0AIAJBPHEhAEEAIQEDQCABQZiBBWogBCABaiICLQAAOgAAIAFBmYEFaiACQQFqLQAAOgAAIAFBmoEFaiACQQJqLQAAOgAAIAFBm4EFaiACQQNqLQAAOgAAIAAgAUEEaiIBRw0ACyAGRQ0BCwNAIAFBmIEFaiAEIAFqLQAAOgAAIAFBAWohASAGQX9qIgYNAAsLC5gLARd/QQAoApSBBSECQQAoApCBBSEDQQAoAoyBBSEEQQAoAoiBBSEFA0AgAEEcaigCACIGIABBFGooAgAiByAAQRhqKAIAIgggAEEQaigCACIJIABBLGooAgAiCiAAQShqKAIAIgsgAEEkaigCACIMIABBIGooAgAiDSALIAggAEEIaigCACIOIANqIABBBGooAgAiDyACaiAEIAMgAnNxIAJzIAVqIAAoAgAiEGpBA3ciESAEIANzcSADc2pBB3ciEiARIARzcSAEc2pBC3ciE2ogEiAHaiAJIBFqIABBDGooAgAiFCAEaiATIBIgEXNxIBFzakETdyIRIBMgEnNxIBJzakEDdyISIBEgE3NxIBNzakEHdyITIBIgEXNxIBFzakELdyIVaiATIAxqIBIgDWogESAGaiAVIBMgEnNxIBJzakETdyIRIBUgE3NxIBNzakEDdyISIBEgFXNxIBVzakEHdyITIBIgEXNxIBFzakELdyIVIABBOGooAgAiFmogEyAAQTRqKAIAIhdqIBIgAEEwaigCACIYaiARIApqIBUgEyASc3EgEnNqQRN3IhIgFSATc3EgE3NqQQN3IhMgEiAVc3EgFXNqQQd3IhUgEyASc3EgEnNqQQt3IhFqIAkgFWogECATaiASIABBPGooAgAiCWogESAVIBNzcSATc2pBE3ciEiARIBVycSARIBVxcmpBmfOJ1AVqQQN3IhMgEiARcnEgEiARcXJqQZnzidQFakEFdyIRIBMgEnJxIBMgEnFyakGZ84nUBWpBCXciFWogByARaiAPIBNqIBggEmogFSARIBNycSARIBNxcmpBmfOJ1AVqQQ13IhIgFSARcnEgFSARcXJqQZnzidQFakEDdyIRIBIgFXJxIBIgFXFyakGZ84nUBWpBBXciEyARIBJycSARIBJxcmpBmfOJ1AVqQQl3IhVqIAggE2ogDiARaiAXIBJqIBUgEyARcnEgEyARcXJqQZnzidQFakENdyIRIBUgE3JxIBUgE3FyakGZ84nUBWpBA3ciEiARIBVycSARIBVxcmpBmfOJ1AVqQQV3IhMgEiARcnEgEiARcXJqQZnzidQFakEJdyIVaiAGIBNqIBQgEmogFiARaiAVIBMgEnJxIBMgEnFyakGZ84nUBWpBDXciESAVIBNycSAVIBNxcmpBmfOJ1AVqQQN3IhIgESAVcnEgESAVcXJqQZnzidQFakEFdyITIBIgEXJxIBIgEXFyakGZ84nUBWpBCXciFWogECASaiAJIBFqIBUgEyAScnEgEyAScXJqQZnzidQFakENdyIGIBVzIhIgE3NqQaHX5/YGakEDdyIRIAZzIA0gE2ogEiARc2pBodfn9gZqQQl3IhJzakGh1+f2BmpBC3ciE2ogDiARaiATIBJzIBggBmogEiARcyATc2pBodfn9gZqQQ93IhFzakGh1+f2BmpBA3ciFSARcyALIBJqIBEgE3MgFXNqQaHX5/YGakEJdyISc2pBodfn9gZqQQt3IhNqIA8gFWogEyAScyAWIBFqIBIgFXMgE3NqQaHX5/YGakEPdyIRc2pBodfn9gZqQQN3IhUgEXMgDCASaiARIBNzIBVzakGh1+f2BmpBCXciEnNqQaHX5/YGakELdyITaiAUIBVqIBMgEnMgFyARaiASIBVzIBNzakGh1+f2BmpBD3ciEXNqQaHX5/YGakEDdyIVIBFzIAogEmogESATcyAVc2pBodfn9gZqQQl3IhJzakGh1+f2BmpBC3ciEyADaiEDIAkgEWogEiAVcyATc2pBodfn9gZqQQ93IARqIQQgEiACaiECIBUgBWohBSAAQcAAaiEAIAFBQGoiAQ0AC0EAIAI2ApSBBUEAIAM2ApCBBUEAIAQ2AoyBBUEAIAU2AoiBBSAAC44FAQd/QQAoAoCBBUE/cSIAQYABOgCYgQUCQAJAAkAgAEE/cyIBQQdLDQACQCAAQT9GDQAgAUEDcSEBQQAhAgJAIABBO0sNAEE7IABrQQJ2QQFqIgNBA3EhBEEAIQICQAJAIABBL0sNACAAQYCBBWohBSADQQJ0QfAAcSEGQQAhAgNAIAUgAmoiA0EhakIANwAAIANBGWpCADcAACAGIAJBEGoiAkcNAAsgBEUNAQsgBEECdCEFIAIgAGpBgIEFaiEGQQAhAwNAIAYgA2pBGWpBADYAACAFIANBBGoiA0cNAAsgAiADaiECCyABRQ0BCyACIABqQZmBBWohAwNAIANBADoAACADQQFqIQMgAUF/aiIBDQALC0GYgQUhAkGYgQVBwAAQAxpBgIEFIQFBNyEDDAELIABBN0YNAUE2IABrIgIhAwJAIAFBA3EiAUUNAEEAIAFrIQFBACEDA0AgA0HPgQVqQQA6AAAgASADQX9qIgNHDQALIAIgA2ohAwsgAkEDSQ0BIABBAWoiAkGAgQVqIQEgAkGYgQVqIQICQCADQX1qIgBBBHENACACIANqIgVBADoAACABIANqQRZqQQA7AAAgBUF9akEAOgAAIANBfGohAwsgAEEESQ0BCyACQXlqIQJBfyEFA0AgAiADaiIAQQdqQQA6AAAgASADaiIGQRZqQQA7AAAgAEEDakEAOwAAIAZBEmpBADsAACAAQQA6AAAgAkF4aiECIAFBeGohASADIAVBCGoiBUcNAAsLQQBBACgChIEFNgLUgQVBAEEAKAKAgQVBA3QiAzYC0IEFQQAgAzYCgIEFQZiBBUHAABADGkEAQQApAoiBBTcDgIEEQQBBACkCkIEFNwOIgQQLBgBBgIEFCzMAQQBC/rnrxemOlZkQNwKQgQVBAEKBxpS6lvHq5m83AoiBBUEAQgA3AoCBBSAAEAIQBAsLDAEAQYCABAsEmAAAAA==";
var hash$e = "714a79fb";
var wasmJson$e = {
	name: name$e,
	data: data$e,
	hash: hash$e
};

const mutex$f = new Mutex();
let wasmCache$f = null;
/**
 * Calculates MD4 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function md4(data) {
    if (wasmCache$f === null) {
        return lockedCreate(mutex$f, wasmJson$e, 16).then((wasm) => {
            wasmCache$f = wasm;
            return wasmCache$f.calculate(data);
        });
    }
    try {
        const hash = wasmCache$f.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new MD4 hash instance
 */
function createMD4() {
    return WASMInterface(wasmJson$e, 16).then((wasm) => {
        wasm.init();
        const obj = {
            init: () => {
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 64,
            digestSize: 16,
        };
        return obj;
    });
}

var name$d = "md5";
var data$d = "AGFzbQEAAAABEgRgAAF/YAAAYAF/AGACf38BfwMIBwABAgMBAAIFBAEBAgIGDwJ/AUGAgAQLfwBBgIAECweCAQkGbWVtb3J5AgAPX19zdGFja19wb2ludGVyAwAOSGFzaF9HZXRCdWZmZXIAAAlIYXNoX0luaXQAAQtIYXNoX1VwZGF0ZQACCkhhc2hfRmluYWwABA1IYXNoX0dldFN0YXRlAAUOSGFzaF9DYWxjdWxhdGUABgpTVEFURV9TSVpFAwEKgxwHBgBBgIEECy0AQQBC/rnrxemOlZkQNwKQgQVBAEKBxpS6lvHq5m83AoiBBUEAQgA3AoCBBQvKBQEHf0EAQQAoAoCBBSIBIABqQf////8BcSICNgKAgQVBAEEAKAKEgQUgAiABSWogAEEddmo2AoSBBQJAAkACQAJAAkACQCABQT9xIgMNAEGAgQQhBAwBCyAAQcAAIANrIgVJDQEgBUEDcSEGQQAhAQJAAkAgA0E/c0EDSQ0AIANBgIEFaiEEIAVB/ABxIQdBACEBA0AgBCABaiICQRhqIAFBgIEEai0AADoAACACQRlqIAFBgYEEai0AADoAACACQRpqIAFBgoEEai0AADoAACACQRtqIAFBg4EEai0AADoAACAHIAFBBGoiAUcNAAsgBkUNAQsgA0GYgQVqIQIDQCACIAFqIAFBgIEEai0AADoAACABQQFqIQEgBkF/aiIGDQALC0GYgQVBwAAQAxogACAFayEAIAVBgIEEaiEECyAAQcAATw0BIAAhAgwCCyAARQ0CIABBA3EhBkEAIQECQCAAQQRJDQAgA0GAgQVqIQQgAEF8cSEAQQAhAQNAIAQgAWoiAkEYaiABQYCBBGotAAA6AAAgAkEZaiABQYGBBGotAAA6AAAgAkEaaiABQYKBBGotAAA6AAAgAkEbaiABQYOBBGotAAA6AAAgACABQQRqIgFHDQALIAZFDQMLIANBmIEFaiECA0AgAiABaiABQYCBBGotAAA6AAAgAUEBaiEBIAZBf2oiBg0ADAMLCyAAQT9xIQIgBCAAQUBxEAMhBAsgAkUNACACQQNxIQZBACEBAkAgAkEESQ0AIAJBPHEhAEEAIQEDQCABQZiBBWogBCABaiICLQAAOgAAIAFBmYEFaiACQQFqLQAAOgAAIAFBmoEFaiACQQJqLQAAOgAAIAFBm4EFaiACQQNqLQAAOgAAIAAgAUEEaiIBRw0ACyAGRQ0BCwNAIAFBmIEFaiAEIAFqLQAAOgAAIAFBAWohASAGQX9qIgYNAAsLC7QQARl/QQAoApSBBSECQQAoApCBBSEDQQAoAoyBBSEEQQAoAoiBBSEFA0AgAEEIaigCACIGIABBGGooAgAiByAAQShqKAIAIgggAEE4aigCACIJIABBPGooAgAiCiAAQQxqKAIAIgsgAEEcaigCACIMIABBLGooAgAiDSAMIAsgCiANIAkgCCAHIAMgBmogAiAAQQRqKAIAIg5qIAUgBCACIANzcSACc2ogACgCACIPakH4yKq7fWpBB3cgBGoiECAEIANzcSADc2pB1u6exn5qQQx3IBBqIhEgECAEc3EgBHNqQdvhgaECakERdyARaiISaiAAQRRqKAIAIhMgEWogAEEQaigCACIUIBBqIAQgC2ogEiARIBBzcSAQc2pB7p33jXxqQRZ3IBJqIhAgEiARc3EgEXNqQa+f8Kt/akEHdyAQaiIRIBAgEnNxIBJzakGqjJ+8BGpBDHcgEWoiEiARIBBzcSAQc2pBk4zBwXpqQRF3IBJqIhVqIABBJGooAgAiFiASaiAAQSBqKAIAIhcgEWogDCAQaiAVIBIgEXNxIBFzakGBqppqakEWdyAVaiIQIBUgEnNxIBJzakHYsYLMBmpBB3cgEGoiESAQIBVzcSAVc2pBr++T2nhqQQx3IBFqIhIgESAQc3EgEHNqQbG3fWpBEXcgEmoiFWogAEE0aigCACIYIBJqIABBMGooAgAiGSARaiANIBBqIBUgEiARc3EgEXNqQb6v88p4akEWdyAVaiIQIBUgEnNxIBJzakGiosDcBmpBB3cgEGoiESAQIBVzcSAVc2pBk+PhbGpBDHcgEWoiFSARIBBzcSAQc2pBjofls3pqQRF3IBVqIhJqIAcgFWogDiARaiAKIBBqIBIgFSARc3EgEXNqQaGQ0M0EakEWdyASaiIQIBJzIBVxIBJzakHiyviwf2pBBXcgEGoiESAQcyAScSAQc2pBwOaCgnxqQQl3IBFqIhIgEXMgEHEgEXNqQdG0+bICakEOdyASaiIVaiAIIBJqIBMgEWogDyAQaiAVIBJzIBFxIBJzakGqj9vNfmpBFHcgFWoiECAVcyAScSAVc2pB3aC8sX1qQQV3IBBqIhEgEHMgFXEgEHNqQdOokBJqQQl3IBFqIhIgEXMgEHEgEXNqQYHNh8V9akEOdyASaiIVaiAJIBJqIBYgEWogFCAQaiAVIBJzIBFxIBJzakHI98++fmpBFHcgFWoiECAVcyAScSAVc2pB5puHjwJqQQV3IBBqIhEgEHMgFXEgEHNqQdaP3Jl8akEJdyARaiISIBFzIBBxIBFzakGHm9Smf2pBDncgEmoiFWogBiASaiAYIBFqIBcgEGogFSAScyARcSASc2pB7anoqgRqQRR3IBVqIhAgFXMgEnEgFXNqQYXSj896akEFdyAQaiIRIBBzIBVxIBBzakH4x75nakEJdyARaiISIBFzIBBxIBFzakHZhby7BmpBDncgEmoiFWogFyASaiATIBFqIBkgEGogFSAScyARcSASc2pBipmp6XhqQRR3IBVqIhAgFXMiFSASc2pBwvJoakEEdyAQaiIRIBVzakGB7ce7eGpBC3cgEWoiEiARcyIaIBBzakGiwvXsBmpBEHcgEmoiFWogFCASaiAOIBFqIAkgEGogFSAac2pBjPCUb2pBF3cgFWoiECAVcyIVIBJzakHE1PulempBBHcgEGoiESAVc2pBqZ/73gRqQQt3IBFqIhIgEXMiCSAQc2pB4JbttX9qQRB3IBJqIhVqIA8gEmogGCARaiAIIBBqIBUgCXNqQfD4/vV7akEXdyAVaiIQIBVzIhUgEnNqQcb97cQCakEEdyAQaiIRIBVzakH6z4TVfmpBC3cgEWoiEiARcyIIIBBzakGF4bynfWpBEHcgEmoiFWogGSASaiAWIBFqIAcgEGogFSAIc2pBhbqgJGpBF3cgFWoiESAVcyIQIBJzakG5oNPOfWpBBHcgEWoiEiAQc2pB5bPutn5qQQt3IBJqIhUgEnMiByARc2pB+PmJ/QFqQRB3IBVqIhBqIAwgFWogDyASaiAGIBFqIBAgB3NqQeWssaV8akEXdyAQaiIRIBVBf3NyIBBzakHExKShf2pBBncgEWoiEiAQQX9zciARc2pBl/+rmQRqQQp3IBJqIhAgEUF/c3IgEnNqQafH0Nx6akEPdyAQaiIVaiALIBBqIBkgEmogEyARaiAVIBJBf3NyIBBzakG5wM5kakEVdyAVaiIRIBBBf3NyIBVzakHDs+2qBmpBBncgEWoiECAVQX9zciARc2pBkpmz+HhqQQp3IBBqIhIgEUF/c3IgEHNqQf3ov39qQQ93IBJqIhVqIAogEmogFyAQaiAOIBFqIBUgEEF/c3IgEnNqQdG7kax4akEVdyAVaiIQIBJBf3NyIBVzakHP/KH9BmpBBncgEGoiESAVQX9zciAQc2pB4M2zcWpBCncgEWoiEiAQQX9zciARc2pBlIaFmHpqQQ93IBJqIhVqIA0gEmogFCARaiAYIBBqIBUgEUF/c3IgEnNqQaGjoPAEakEVdyAVaiIQIBJBf3NyIBVzakGC/c26f2pBBncgEGoiESAVQX9zciAQc2pBteTr6XtqQQp3IBFqIhIgEEF/c3IgEXNqQbul39YCakEPdyASaiIVIARqIBYgEGogFSARQX9zciASc2pBkaeb3H5qQRV3aiEEIBUgA2ohAyASIAJqIQIgESAFaiEFIABBwABqIQAgAUFAaiIBDQALQQAgAjYClIEFQQAgAzYCkIEFQQAgBDYCjIEFQQAgBTYCiIEFIAALjgUBB39BACgCgIEFQT9xIgBBgAE6AJiBBQJAAkACQCAAQT9zIgFBB0sNAAJAIABBP0YNACABQQNxIQFBACECAkAgAEE7Sw0AQTsgAGtBAnZBAWoiA0EDcSEEQQAhAgJAAkAgAEEvSw0AIABBgIEFaiEFIANBAnRB8ABxIQZBACECA0AgBSACaiIDQSFqQgA3AAAgA0EZakIANwAAIAYgAkEQaiICRw0ACyAERQ0BCyAEQQJ0IQUgAiAAakGAgQVqIQZBACEDA0AgBiADakEZakEANgAAIAUgA0EEaiIDRw0ACyACIANqIQILIAFFDQELIAIgAGpBmYEFaiEDA0AgA0EAOgAAIANBAWohAyABQX9qIgENAAsLQZiBBSECQZiBBUHAABADGkGAgQUhAUE3IQMMAQsgAEE3Rg0BQTYgAGsiAiEDAkAgAUEDcSIBRQ0AQQAgAWshAUEAIQMDQCADQc+BBWpBADoAACABIANBf2oiA0cNAAsgAiADaiEDCyACQQNJDQEgAEEBaiICQYCBBWohASACQZiBBWohAgJAIANBfWoiAEEEcQ0AIAIgA2oiBUEAOgAAIAEgA2pBFmpBADsAACAFQX1qQQA6AAAgA0F8aiEDCyAAQQRJDQELIAJBeWohAkF/IQUDQCACIANqIgBBB2pBADoAACABIANqIgZBFmpBADsAACAAQQNqQQA7AAAgBkESakEAOwAAIABBADoAACACQXhqIQIgAUF4aiEBIAMgBUEIaiIFRw0ACwtBAEEAKAKEgQU2AtSBBUEAQQAoAoCBBUEDdCIDNgLQgQVBACADNgKAgQVBmIEFQcAAEAMaQQBBACkCiIEFNwOAgQRBAEEAKQKQgQU3A4iBBAsGAEGAgQULMwBBAEL+uevF6Y6VmRA3ApCBBUEAQoHGlLqW8ermbzcCiIEFQQBCADcCgIEFIAAQAhAECwsMAQBBgIAECwSYAAAA";
var hash$d = "dc3031df";
var wasmJson$d = {
	name: name$d,
	data: data$d,
	hash: hash$d
};

const mutex$e = new Mutex();
let wasmCache$e = null;
/**
 * Calculates MD5 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function md5(data) {
    if (wasmCache$e === null) {
        return lockedCreate(mutex$e, wasmJson$d, 16).then((wasm) => {
            wasmCache$e = wasm;
            return wasmCache$e.calculate(data);
        });
    }
    try {
        const hash = wasmCache$e.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new MD5 hash instance
 */
function createMD5() {
    return WASMInterface(wasmJson$d, 16).then((wasm) => {
        wasm.init();
        const obj = {
            init: () => {
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 64,
            digestSize: 16,
        };
        return obj;
    });
}

var name$c = "sha1";
var data$c = "AGFzbQEAAAABEQRgAAF/YAF/AGAAAGACf38AAwkIAAECAwECAAEFBAEBAgIGDwJ/AUGAgAQLfwBBgIAECweCAQkGbWVtb3J5AgAPX19zdGFja19wb2ludGVyAwAOSGFzaF9HZXRCdWZmZXIAAAlIYXNoX0luaXQAAgtIYXNoX1VwZGF0ZQAECkhhc2hfRmluYWwABQ1IYXNoX0dldFN0YXRlAAYOSGFzaF9DYWxjdWxhdGUABwpTVEFURV9TSVpFAwEKpCgIBgBBgIEEC/8gCgF+An8BfgF/AX4DfwF+AX8Bfkd/QQAgACkDECIBQiCIpyICQf+B/AdxQQh4IAJBGHhB/4H8B3FyIgMgACkDCCIEQiCIpyICQf+B/AdxQQh4IAJBGHhB/4H8B3FyIgVzIAApAygiBkIgiKciAkH/gfwHcUEIeCACQRh4Qf+B/AdxciIHcyAEpyICQf+B/AdxQQh4IAJBGHhB/4H8B3FyIgggACkDACIEpyICQf+B/AdxQQh4IAJBGHhB/4H8B3FyIglzIAApAyAiCqciAkH/gfwHcUEIeCACQRh4Qf+B/AdxciILcyAAKQMwIgxCIIinIgJB/4H8B3FBCHggAkEYeEH/gfwHcXIiAnNBAXciDXNBAXciDiAFIARCIIinIg9B/4H8B3FBCHggD0EYeEH/gfwHcXIiEHMgCkIgiKciD0H/gfwHcUEIeCAPQRh4Qf+B/AdxciIRcyAAKQM4IgSnIg9B/4H8B3FBCHggD0EYeEH/gfwHcXIiD3NBAXciEnMgByARcyAScyALIAApAxgiCqciAEH/gfwHcUEIeCAAQRh4Qf+B/AdxciITcyAPcyAOc0EBdyIAc0EBdyIUcyANIA9zIABzIAIgB3MgDnMgBqciFUH/gfwHcUEIeCAVQRh4Qf+B/AdxciIWIAtzIA1zIApCIIinIhVB/4H8B3FBCHggFUEYeEH/gfwHcXIiFyADcyACcyABpyIVQf+B/AdxQQh4IBVBGHhB/4H8B3FyIhggCHMgFnMgBEIgiKciFUH/gfwHcUEIeCAVQRh4Qf+B/AdxciIVc0EBdyIZc0EBdyIac0EBdyIbc0EBdyIcc0EBdyIdc0EBdyIeIBIgFXMgESAXcyAVcyATIBhzIAynIh9B/4H8B3FBCHggH0EYeEH/gfwHcXIiIHMgEnNBAXciH3NBAXciIXMgDyAgcyAfcyAUc0EBdyIic0EBdyIjcyAUICFzICNzIAAgH3MgInMgHnNBAXciJHNBAXciJXMgHSAicyAkcyAcIBRzIB5zIBsgAHMgHXMgGiAOcyAccyAZIA1zIBtzIBUgAnMgGnMgICAWcyAZcyAhc0EBdyImc0EBdyInc0EBdyIoc0EBdyIpc0EBdyIqc0EBdyIrc0EBdyIsc0EBdyItICMgJ3MgISAacyAncyAfIBlzICZzICNzQQF3Ii5zQQF3Ii9zICIgJnMgLnMgJXNBAXciMHNBAXciMXMgJSAvcyAxcyAkIC5zIDBzIC1zQQF3IjJzQQF3IjNzICwgMHMgMnMgKyAlcyAtcyAqICRzICxzICkgHnMgK3MgKCAdcyAqcyAnIBxzIClzICYgG3MgKHMgL3NBAXciNHNBAXciNXNBAXciNnNBAXciN3NBAXciOHNBAXciOXNBAXciOnNBAXciOyAxIDVzIC8gKXMgNXMgLiAocyA0cyAxc0EBdyI8c0EBdyI9cyAwIDRzIDxzIDNzQQF3Ij5zQQF3Ij9zIDMgPXMgP3MgMiA8cyA+cyA7c0EBdyJAc0EBdyJBcyA6ID5zIEBzIDkgM3MgO3MgOCAycyA6cyA3IC1zIDlzIDYgLHMgOHMgNSArcyA3cyA0ICpzIDZzID1zQQF3IkJzQQF3IkNzQQF3IkRzQQF3IkVzQQF3IkZzQQF3IkdzQQF3IkhzQQF3IkkgPiBCcyA8IDZzIEJzID9zQQF3IkpzIEFzQQF3IksgPSA3cyBDcyBKc0EBdyJMIEQgOSAyIDEgNCApIB0gFCAfIBUgFkEAKAKAgQUiTUEFd0EAKAKQgQUiTmogCWpBACgCjIEFIk9BACgCiIEFIglzQQAoAoSBBSJQcSBPc2pBmfOJ1AVqIlFBHnciUiADaiBQQR53IgMgBWogTyADIAlzIE1xIAlzaiAQaiBRQQV3akGZ84nUBWoiECBSIE1BHnciBXNxIAVzaiAJIAhqIFEgAyAFc3EgA3NqIBBBBXdqQZnzidQFaiJRQQV3akGZ84nUBWoiUyBRQR53IgMgEEEedyIIc3EgCHNqIAUgGGogUSAIIFJzcSBSc2ogU0EFd2pBmfOJ1AVqIgVBBXdqQZnzidQFaiIYQR53IlJqIFNBHnciFiALaiAIIBNqIAUgFiADc3EgA3NqIBhBBXdqQZnzidQFaiIIIFIgBUEedyILc3EgC3NqIAMgF2ogGCALIBZzcSAWc2ogCEEFd2pBmfOJ1AVqIgVBBXdqQZnzidQFaiITIAVBHnciFiAIQR53IgNzcSADc2ogCyARaiAFIAMgUnNxIFJzaiATQQV3akGZ84nUBWoiEUEFd2pBmfOJ1AVqIlJBHnciC2ogAiATQR53IhVqIAcgA2ogESAVIBZzcSAWc2ogUkEFd2pBmfOJ1AVqIgcgCyARQR53IgJzcSACc2ogICAWaiBSIAIgFXNxIBVzaiAHQQV3akGZ84nUBWoiEUEFd2pBmfOJ1AVqIhYgEUEedyIVIAdBHnciB3NxIAdzaiAPIAJqIBEgByALc3EgC3NqIBZBBXdqQZnzidQFaiILQQV3akGZ84nUBWoiEUEedyICaiASIBVqIBEgC0EedyIPIBZBHnciEnNxIBJzaiANIAdqIAsgEiAVc3EgFXNqIBFBBXdqQZnzidQFaiINQQV3akGZ84nUBWoiFUEedyIfIA1BHnciB3MgGSASaiANIAIgD3NxIA9zaiAVQQV3akGZ84nUBWoiDXNqIA4gD2ogFSAHIAJzcSACc2ogDUEFd2pBmfOJ1AVqIgJBBXdqQaHX5/YGaiIOQR53Ig9qIAAgH2ogAkEedyIAIA1BHnciDXMgDnNqIBogB2ogDSAfcyACc2ogDkEFd2pBodfn9gZqIgJBBXdqQaHX5/YGaiIOQR53IhIgAkEedyIUcyAhIA1qIA8gAHMgAnNqIA5BBXdqQaHX5/YGaiICc2ogGyAAaiAUIA9zIA5zaiACQQV3akGh1+f2BmoiAEEFd2pBodfn9gZqIg1BHnciDmogHCASaiAAQR53Ig8gAkEedyICcyANc2ogJiAUaiACIBJzIABzaiANQQV3akGh1+f2BmoiAEEFd2pBodfn9gZqIg1BHnciEiAAQR53IhRzICIgAmogDiAPcyAAc2ogDUEFd2pBodfn9gZqIgBzaiAnIA9qIBQgDnMgDXNqIABBBXdqQaHX5/YGaiICQQV3akGh1+f2BmoiDUEedyIOaiAoIBJqIAJBHnciDyAAQR53IgBzIA1zaiAjIBRqIAAgEnMgAnNqIA1BBXdqQaHX5/YGaiICQQV3akGh1+f2BmoiDUEedyISIAJBHnciFHMgHiAAaiAOIA9zIAJzaiANQQV3akGh1+f2BmoiAHNqIC4gD2ogFCAOcyANc2ogAEEFd2pBodfn9gZqIgJBBXdqQaHX5/YGaiINQR53Ig5qICogAEEedyIAaiAOIAJBHnciD3MgJCAUaiAAIBJzIAJzaiANQQV3akGh1+f2BmoiFHNqIC8gEmogDyAAcyANc2ogFEEFd2pBodfn9gZqIg1BBXdqQaHX5/YGaiIAIA1BHnciAnIgFEEedyIScSAAIAJxcmogJSAPaiASIA5zIA1zaiAAQQV3akGh1+f2BmoiDUEFd2pB3Pnu+HhqIg5BHnciD2ogNSAAQR53IgBqICsgEmogDSAAciACcSANIABxcmogDkEFd2pB3Pnu+HhqIhIgD3IgDUEedyINcSASIA9xcmogMCACaiAOIA1yIABxIA4gDXFyaiASQQV3akHc+e74eGoiAEEFd2pB3Pnu+HhqIgIgAEEedyIOciASQR53IhJxIAIgDnFyaiAsIA1qIAAgEnIgD3EgACAScXJqIAJBBXdqQdz57vh4aiIAQQV3akHc+e74eGoiDUEedyIPaiA8IAJBHnciAmogNiASaiAAIAJyIA5xIAAgAnFyaiANQQV3akHc+e74eGoiEiAPciAAQR53IgBxIBIgD3FyaiAtIA5qIA0gAHIgAnEgDSAAcXJqIBJBBXdqQdz57vh4aiICQQV3akHc+e74eGoiDSACQR53Ig5yIBJBHnciEnEgDSAOcXJqIDcgAGogAiASciAPcSACIBJxcmogDUEFd2pB3Pnu+HhqIgBBBXdqQdz57vh4aiICQR53Ig9qIDMgDUEedyINaiA9IBJqIAAgDXIgDnEgACANcXJqIAJBBXdqQdz57vh4aiISIA9yIABBHnciAHEgEiAPcXJqIDggDmogAiAAciANcSACIABxcmogEkEFd2pB3Pnu+HhqIgJBBXdqQdz57vh4aiINIAJBHnciDnIgEkEedyIScSANIA5xcmogQiAAaiACIBJyIA9xIAIgEnFyaiANQQV3akHc+e74eGoiAEEFd2pB3Pnu+HhqIgJBHnciD2ogQyAOaiACIABBHnciFHIgDUEedyINcSACIBRxcmogPiASaiAAIA1yIA5xIAAgDXFyaiACQQV3akHc+e74eGoiAEEFd2pB3Pnu+HhqIgJBHnciEiAAQR53Ig5zIDogDWogACAPciAUcSAAIA9xcmogAkEFd2pB3Pnu+HhqIgBzaiA/IBRqIAIgDnIgD3EgAiAOcXJqIABBBXdqQdz57vh4aiICQQV3akHWg4vTfGoiDUEedyIPaiBKIBJqIAJBHnciFCAAQR53IgBzIA1zaiA7IA5qIAAgEnMgAnNqIA1BBXdqQdaDi9N8aiICQQV3akHWg4vTfGoiDUEedyIOIAJBHnciEnMgRSAAaiAPIBRzIAJzaiANQQV3akHWg4vTfGoiAHNqIEAgFGogEiAPcyANc2ogAEEFd2pB1oOL03xqIgJBBXdqQdaDi9N8aiINQR53Ig9qIEEgDmogAkEedyIUIABBHnciAHMgDXNqIEYgEmogACAOcyACc2ogDUEFd2pB1oOL03xqIgJBBXdqQdaDi9N8aiINQR53Ig4gAkEedyIScyBCIDhzIERzIExzQQF3IhUgAGogDyAUcyACc2ogDUEFd2pB1oOL03xqIgBzaiBHIBRqIBIgD3MgDXNqIABBBXdqQdaDi9N8aiICQQV3akHWg4vTfGoiDUEedyIPaiBIIA5qIAJBHnciFCAAQR53IgBzIA1zaiBDIDlzIEVzIBVzQQF3IhkgEmogACAOcyACc2ogDUEFd2pB1oOL03xqIgJBBXdqQdaDi9N8aiINQR53Ig4gAkEedyIScyA/IENzIExzIEtzQQF3IhogAGogDyAUcyACc2ogDUEFd2pB1oOL03xqIgBzaiBEIDpzIEZzIBlzQQF3IhsgFGogEiAPcyANc2ogAEEFd2pB1oOL03xqIgJBBXdqQdaDi9N8aiINQR53Ig8gTmo2ApCBBUEAIE8gSiBEcyAVcyAac0EBdyIUIBJqIABBHnciACAOcyACc2ogDUEFd2pB1oOL03xqIhJBHnciFWo2AoyBBUEAIAkgRSA7cyBHcyAbc0EBdyAOaiACQR53IgIgAHMgDXNqIBJBBXdqQdaDi9N8aiINQR53ajYCiIEFQQAgUCBAIEpzIEtzIElzQQF3IABqIA8gAnMgEnNqIA1BBXdqQdaDi9N8aiIAajYChIEFQQAgTSBMIEVzIBlzIBRzQQF3aiACaiAVIA9zIA1zaiAAQQV3akHWg4vTfGo2AoCBBQs6AEEAQv6568XpjpWZEDcCiIEFQQBCgcaUupbx6uZvNwKAgQVBAELww8ueDDcCkIEFQQBBADYCmIEFC6ADAQh/QQAhAkEAQQAoApSBBSIDIAFBA3RqIgQ2ApSBBUEAQQAoApiBBSAEIANJaiABQR12ajYCmIEFAkAgA0EDdkE/cSIFIAFqQcAASQ0AQcAAIAVrIgJBA3EhBkEAIQQCQAJAIAVBP3NBA0kNACAFQYCBBWohByACQfwAcSEIQQAhBANAIAcgBGoiA0EcaiAAIARqIgktAAA6AAAgA0EdaiAJQQFqLQAAOgAAIANBHmogCUECai0AADoAACADQR9qIAlBA2otAAA6AAAgCCAEQQRqIgRHDQALIAZFDQELIAAgBGohAyAEIAVqQZyBBWohBANAIAQgAy0AADoAACADQQFqIQMgBEEBaiEEIAZBf2oiBg0ACwtBnIEFEAEgBUH/AHMhA0EAIQUgAyABTw0AA0AgACACIgNqEAEgA0HAAGohAiADQf8AaiABSQ0ACwsCQCABIAJGDQAgASACayEGIAVBnIEFaiEDIAAgAmohBEEAIQkDQCADIAQtAAA6AAAgBEEBaiEEIANBAWohAyAGIAlBAWoiCUH/AXFLDQALCwsKAEGAgQQgABADC+UCAQJ/IwBBEGsiACQAIABBgAE6AAcgAEEAKAKYgQUiAUH/gfwHcUEIeCABQRh4Qf+B/AdxcjYACCAAQQAoApSBBSIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyNgAMIABBB2pBARADAkBBACgClIEFQfgDcUHAA0YNAANAIABBADoAByAAQQdqQQEQA0EAKAKUgQVB+ANxQcADRw0ACwsgAEEIakEIEANBAEEAKAKAgQUiAUH/gfwHcUEIeCABQRh4Qf+B/AdxcjYCgIEEQQBBACgChIEFIgFB/4H8B3FBCHggAUEYeEH/gfwHcXI2AoSBBEEAQQAoAoiBBSIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyNgKIgQRBAEEAKAKMgQUiAUH/gfwHcUEIeCABQRh4Qf+B/AdxcjYCjIEEQQBBACgCkIEFIgFB/4H8B3FBCHggAUEYeEH/gfwHcXI2ApCBBCAAQRBqJAALBgBBgIEFC0QAQQBC/rnrxemOlZkQNwKIgQVBAEKBxpS6lvHq5m83AoCBBUEAQvDDy54MNwKQgQVBAEEANgKYgQVBgIEEIAAQAxAFCwsMAQBBgIAECwRcAAAA";
var hash$c = "a5f2c72b";
var wasmJson$c = {
	name: name$c,
	data: data$c,
	hash: hash$c
};

const mutex$d = new Mutex();
let wasmCache$d = null;
/**
 * Calculates SHA-1 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function sha1(data) {
    if (wasmCache$d === null) {
        return lockedCreate(mutex$d, wasmJson$c, 20).then((wasm) => {
            wasmCache$d = wasm;
            return wasmCache$d.calculate(data);
        });
    }
    try {
        const hash = wasmCache$d.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new SHA-1 hash instance
 */
function createSHA1() {
    return WASMInterface(wasmJson$c, 20).then((wasm) => {
        wasm.init();
        const obj = {
            init: () => {
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 64,
            digestSize: 20,
        };
        return obj;
    });
}

var name$b = "sha3";
var data$b = "AGFzbQEAAAABFARgAAF/YAF/AGACf38AYAN/f38AAwgHAAEBAgEAAwUEAQECAgYPAn8BQYCABAt/AEGAgAQLB4IBCQZtZW1vcnkCAA9fX3N0YWNrX3BvaW50ZXIDAA5IYXNoX0dldEJ1ZmZlcgAACUhhc2hfSW5pdAABC0hhc2hfVXBkYXRlAAIKSGFzaF9GaW5hbAAEDUhhc2hfR2V0U3RhdGUABQ5IYXNoX0NhbGN1bGF0ZQAGClNUQVRFX1NJWkUDAQqmHAcGAEGAggQL1wMAQQBCADcDgIUFQQBCADcD+IQFQQBCADcD8IQFQQBCADcD6IQFQQBCADcD4IQFQQBCADcD2IQFQQBCADcD0IQFQQBCADcDyIQFQQBCADcDwIQFQQBCADcDuIQFQQBCADcDsIQFQQBCADcDqIQFQQBCADcDoIQFQQBCADcDmIQFQQBCADcDkIQFQQBCADcDiIQFQQBCADcDgIQFQQBCADcD+IMFQQBCADcD8IMFQQBCADcD6IMFQQBCADcD4IMFQQBCADcD2IMFQQBCADcD0IMFQQBCADcDyIMFQQBCADcDwIMFQQBCADcDuIMFQQBCADcDsIMFQQBCADcDqIMFQQBCADcDoIMFQQBCADcDmIMFQQBCADcDkIMFQQBCADcDiIMFQQBCADcDgIMFQQBCADcD+IIFQQBCADcD8IIFQQBCADcD6IIFQQBCADcD4IIFQQBCADcD2IIFQQBCADcD0IIFQQBCADcDyIIFQQBCADcDwIIFQQBCADcDuIIFQQBCADcDsIIFQQBCADcDqIIFQQBCADcDoIIFQQBCADcDmIIFQQBCADcDkIIFQQBCADcDiIIFQQBCADcDgIIFQQBBwAwgAEEBdGtBA3Y2AoyFBUEAQQA2AoiFBQuSAwEJfwJAQQAoAoiFBSIBQQBIDQBBACABIABqQQAoAoyFBSICcDYCiIUFAkACQCABDQBBgIIEIQMMAQsCQCAAIAIgAWsiBCAAIARJIgUbIgNFDQAgA0EDcSEGQQAhBwJAIANBBEkNACABQYCCBWohCCADQXxxIQlBACEHA0AgCCAHaiIDQcgBaiAHQYCCBGotAAA6AAAgA0HJAWogB0GBggRqLQAAOgAAIANBygFqIAdBgoIEai0AADoAACADQcsBaiAHQYOCBGotAAA6AAAgCSAHQQRqIgdHDQALIAZFDQELIAFByIMFaiEDA0AgAyAHaiAHQYCCBGotAAA6AAAgB0EBaiEHIAZBf2oiBg0ACwsgBQ0BQciDBSACEAMgACAEayEAIARBgIIEaiEDCwJAIAAgAkkNAANAIAMgAhADIAMgAmohAyAAIAJrIgAgAk8NAAsLIABFDQBBACECQcgBIQcDQCAHQYCCBWogAyAHakG4fmotAAA6AAAgB0EBaiEHIAAgAkEBaiICQf8BcUsNAAsLC+ELAS1+IAApA0AhAkEAKQPAggUhAyAAKQM4IQRBACkDuIIFIQUgACkDMCEGQQApA7CCBSEHIAApAyghCEEAKQOoggUhCSAAKQMgIQpBACkDoIIFIQsgACkDGCEMQQApA5iCBSENIAApAxAhDkEAKQOQggUhDyAAKQMIIRBBACkDiIIFIREgACkDACESQQApA4CCBSETQQApA8iCBSEUAkACQCABQcgASw0AQQApA+iCBSEVQQApA/iCBSEWQQApA/CCBSEXQQApA4CDBSEYQQApA9CCBSEZQQApA+CCBSEaQQApA9iCBSEbDAELQQApA+CCBSAAKQNghSEaQQApA9iCBSAAKQNYhSEbQQApA9CCBSAAKQNQhSEZIBQgACkDSIUhFEEAKQPoggUhFUEAKQP4ggUhFkEAKQPwggUhF0EAKQOAgwUhGCABQekASQ0AIBggACkDgAGFIRggFiAAKQN4hSEWIBcgACkDcIUhFyAVIAApA2iFIRUgAUGJAUkNAEEAQQApA4iDBSAAKQOIAYU3A4iDBQsgAyAChSEcIAUgBIUhHSAHIAaFIQcgCSAIhSEIIAsgCoUhHiANIAyFIQkgDyAOhSEKIBEgEIUhCyATIBKFIQxBACkDuIMFIRBBACkDkIMFIRFBACkDoIMFIRJBACkDsIMFIRNBACkDiIMFIQ1BACkDwIMFIQ5BACkDmIMFIR9BACkDqIMFIQ9BwH4hAANAIB4gByALhSAbhSAYhSAPhUIBiYUgFIUgF4UgH4UgDoUhAiAMIB0gCoUgGoUgDYUgE4VCAYmFIAiFIBmFIBaFIBKFIgMgB4UhICAJIAggDIUgGYUgFoUgEoVCAYmFIByFIBWFIBGFIBCFIgQgDoUhISAcIAogFCAehSAXhSAfhSAOhUIBiYUgHYUgGoUgDYUgE4UiBYVCN4kiIiALIBwgCYUgFYUgEYUgEIVCAYmFIAeFIBuFIBiFIA+FIgYgCoVCPokiI0J/hYMgAyAPhUICiSIkhSEOIBYgAoVCKYkiJSAEIBeFQieJIiZCf4WDICKFIQ8gECAFhUI4iSIQIAYgDYVCD4kiJ0J/hYMgAyAbhUIKiSIohSENIAQgHoVCG4kiKSAoIAggAoVCJIkiKkJ/hYOFIRYgBiAdhUIGiSIrIAMgC4VCAYkiLEJ/hYMgEiAChUISiSIthSEXICsgBCAfhUIIiSIuIBUgBYVCGYkiFUJ/hYOFIRsgBiAThUI9iSIdIAQgFIVCFIkiBCAJIAWFQhyJIghCf4WDhSEUIAggHUJ/hYMgAyAYhUItiSIDhSEcIB0gA0J/hYMgGSAChUIDiSIJhSEdIAQgAyAJQn+Fg4UhByAJIARCf4WDIAiFIQggDCAChSICICFCDokiA0J/hYMgESAFhUIViSIEhSEJIAYgGoVCK4kiBSADIARCf4WDhSEKIAQgBUJ/hYMgIEIsiSIEhSELIABB0IEEaikDACAFIARCf4WDhSAChSEMICcgKEJ/hYMgKoUiBSEYIAMgBCACQn+Fg4UiAiEeICogKUJ/hYMgEIUiAyEfIC0gLkJ/hYMgFYUiBCEaICYgJCAlQn+Fg4UiBiETIBUgK0J/hYMgLIUiKCEZICMgJiAiQn+Fg4UiIiESIC4gLCAtQn+Fg4UiJiEVICcgKSAQQn+Fg4UiJyERICMgJEJ/hYMgJYUiIyEQIABBCGoiAA0AC0EAIA83A6iDBUEAIAU3A4CDBUEAIBs3A9iCBUEAIAc3A7CCBUEAIAs3A4iCBUEAIA43A8CDBUEAIAM3A5iDBUEAIBc3A/CCBUEAIBQ3A8iCBUEAIAI3A6CCBUEAIAY3A7CDBUEAIA03A4iDBUEAIAQ3A+CCBUEAIB03A7iCBUEAIAo3A5CCBUEAICI3A6CDBUEAIBY3A/iCBUEAICg3A9CCBUEAIAg3A6iCBUEAIAw3A4CCBUEAICM3A7iDBUEAICc3A5CDBUEAICY3A+iCBUEAIBw3A8CCBUEAIAk3A5iCBQv1AgEFf0HkAEEAKAKMhQUiAUEBdmshAgJAQQAoAoiFBSIDQQBIDQAgASEEAkAgASADRg0AIANByIMFaiEFQQAhAwNAIAUgA2pBADoAACADQQFqIgMgAUEAKAKIhQUiBGtJDQALCyAEIAQtAMiDBSAAcjoAyIMFIAFBx4MFaiIDIAMtAABBgAFyOgAAQciDBSABEANBAEGAgICAeDYCiIUFCwJAIAJBAnYiA0UNACADQQNxIQVBACEEAkAgAkEQSQ0AIANB/P///wNxIQFBACEDQQAhBANAIANBgIIEaiADQYCCBWooAgA2AgAgA0GEggRqIANBhIIFaigCADYCACADQYiCBGogA0GIggVqKAIANgIAIANBjIIEaiADQYyCBWooAgA2AgAgA0EQaiEDIAEgBEEEaiIERw0ACyAFRQ0BCyAFQQJ0IQEgBEECdCEDA0AgA0GAggRqIANBgIIFaigCADYCACADQQRqIQMgAUF8aiIBDQALCwsGAEGAggULzgYBA39BAEIANwOAhQVBAEIANwP4hAVBAEIANwPwhAVBAEIANwPohAVBAEIANwPghAVBAEIANwPYhAVBAEIANwPQhAVBAEIANwPIhAVBAEIANwPAhAVBAEIANwO4hAVBAEIANwOwhAVBAEIANwOohAVBAEIANwOghAVBAEIANwOYhAVBAEIANwOQhAVBAEIANwOIhAVBAEIANwOAhAVBAEIANwP4gwVBAEIANwPwgwVBAEIANwPogwVBAEIANwPggwVBAEIANwPYgwVBAEIANwPQgwVBAEIANwPIgwVBAEIANwPAgwVBAEIANwO4gwVBAEIANwOwgwVBAEIANwOogwVBAEIANwOggwVBAEIANwOYgwVBAEIANwOQgwVBAEIANwOIgwVBAEIANwOAgwVBAEIANwP4ggVBAEIANwPwggVBAEIANwPoggVBAEIANwPgggVBAEIANwPYggVBAEIANwPQggVBAEIANwPIggVBAEIANwPAggVBAEIANwO4ggVBAEIANwOwggVBAEIANwOoggVBAEIANwOgggVBAEIANwOYggVBAEIANwOQggVBAEIANwOIggVBAEIANwOAggVBAEHADCABQQF0a0EDdjYCjIUFQQBBADYCiIUFIAAQAkHkAEEAKAKMhQUiAEEBdmshAwJAQQAoAoiFBSIBQQBIDQAgACEEAkAgACABRg0AIAFByIMFaiEFQQAhAQNAIAUgAWpBADoAACABQQFqIgEgAEEAKAKIhQUiBGtJDQALCyAEIAQtAMiDBSACcjoAyIMFIABBx4MFaiIBIAEtAABBgAFyOgAAQciDBSAAEANBAEGAgICAeDYCiIUFCwJAIANBAnYiAUUNACABQQNxIQVBACEEAkAgA0EQSQ0AIAFB/P///wNxIQBBACEBQQAhBANAIAFBgIIEaiABQYCCBWooAgA2AgAgAUGEggRqIAFBhIIFaigCADYCACABQYiCBGogAUGIggVqKAIANgIAIAFBjIIEaiABQYyCBWooAgA2AgAgAUEQaiEBIAAgBEEEaiIERw0ACyAFRQ0BCyAFQQJ0IQAgBEECdCEBA0AgAUGAggRqIAFBgIIFaigCADYCACABQQRqIQEgAEF8aiIADQALCwsL2QEBAEGAgAQL0AGQAQAAAAAAAAAAAAAAAAAAAQAAAAAAAACCgAAAAAAAAIqAAAAAAACAAIAAgAAAAICLgAAAAAAAAAEAAIAAAAAAgYAAgAAAAIAJgAAAAAAAgIoAAAAAAAAAiAAAAAAAAAAJgACAAAAAAAoAAIAAAAAAi4AAgAAAAACLAAAAAAAAgImAAAAAAACAA4AAAAAAAIACgAAAAAAAgIAAAAAAAACACoAAAAAAAAAKAACAAAAAgIGAAIAAAACAgIAAAAAAAIABAACAAAAAAAiAAIAAAACA";
var hash$b = "961accfe";
var wasmJson$b = {
	name: name$b,
	data: data$b,
	hash: hash$b
};

const mutex$c = new Mutex();
let wasmCache$c = null;
function validateBits$1(bits) {
    if (![224, 256, 384, 512].includes(bits)) {
        return new Error("Invalid variant! Valid values: 224, 256, 384, 512");
    }
    return null;
}
/**
 * Calculates SHA-3 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param bits Number of output bits. Valid values: 224, 256, 384, 512
 * @returns Computed hash as a hexadecimal string
 */
function sha3(data, bits = 512) {
    if (validateBits$1(bits)) {
        return Promise.reject(validateBits$1(bits));
    }
    const hashLength = bits / 8;
    if (wasmCache$c === null || wasmCache$c.hashLength !== hashLength) {
        return lockedCreate(mutex$c, wasmJson$b, hashLength).then((wasm) => {
            wasmCache$c = wasm;
            return wasmCache$c.calculate(data, bits, 0x06);
        });
    }
    try {
        const hash = wasmCache$c.calculate(data, bits, 0x06);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new SHA-3 hash instance
 * @param bits Number of output bits. Valid values: 224, 256, 384, 512
 */
function createSHA3(bits = 512) {
    if (validateBits$1(bits)) {
        return Promise.reject(validateBits$1(bits));
    }
    const outputSize = bits / 8;
    return WASMInterface(wasmJson$b, outputSize).then((wasm) => {
        wasm.init(bits);
        const obj = {
            init: () => {
                wasm.init(bits);
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType, 0x06),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 200 - 2 * outputSize,
            digestSize: outputSize,
        };
        return obj;
    });
}

const mutex$b = new Mutex();
let wasmCache$b = null;
function validateBits(bits) {
    if (![224, 256, 384, 512].includes(bits)) {
        return new Error("Invalid variant! Valid values: 224, 256, 384, 512");
    }
    return null;
}
/**
 * Calculates Keccak hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param bits Number of output bits. Valid values: 224, 256, 384, 512
 * @returns Computed hash as a hexadecimal string
 */
function keccak(data, bits = 512) {
    if (validateBits(bits)) {
        return Promise.reject(validateBits(bits));
    }
    const hashLength = bits / 8;
    if (wasmCache$b === null || wasmCache$b.hashLength !== hashLength) {
        return lockedCreate(mutex$b, wasmJson$b, hashLength).then((wasm) => {
            wasmCache$b = wasm;
            return wasmCache$b.calculate(data, bits, 0x01);
        });
    }
    try {
        const hash = wasmCache$b.calculate(data, bits, 0x01);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new Keccak hash instance
 * @param bits Number of output bits. Valid values: 224, 256, 384, 512
 */
function createKeccak(bits = 512) {
    if (validateBits(bits)) {
        return Promise.reject(validateBits(bits));
    }
    const outputSize = bits / 8;
    return WASMInterface(wasmJson$b, outputSize).then((wasm) => {
        wasm.init(bits);
        const obj = {
            init: () => {
                wasm.init(bits);
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType, 0x01),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 200 - 2 * outputSize,
            digestSize: outputSize,
        };
        return obj;
    });
}

var name$a = "sha256";
var data$a = "AGFzbQEAAAABEQRgAAF/YAF/AGAAAGACf38AAwgHAAEBAQIAAwUEAQECAgYPAn8BQYCABAt/AEGAgAQLB4IBCQZtZW1vcnkCAA9fX3N0YWNrX3BvaW50ZXIDAA5IYXNoX0dldEJ1ZmZlcgAACUhhc2hfSW5pdAABC0hhc2hfVXBkYXRlAAIKSGFzaF9GaW5hbAAEDUhhc2hfR2V0U3RhdGUABQ5IYXNoX0NhbGN1bGF0ZQAGClNUQVRFX1NJWkUDAQqGSQcGAEGAgQQLnQEAQQBCADcDwIEFQQBBHEEgIABB4AFGIgAbNgLogQVBAEKnn+anxvST/b5/Qquzj/yRo7Pw2wAgABs3A+CBBUEAQrGWgP6fooWs6ABC/6S5iMWR2oKbfyAAGzcD2IEFQQBCl7rDg5Onlod3QvLmu+Ojp/2npX8gABs3A9CBBUEAQti9loj8oLW+NkLnzKfQ1tDrs7t/IAAbNwPIgQUL9wICAX4Hf0EAQQApA8CBBSIBIACtfDcDwIEFAkACQAJAIAGnQT9xIgINAEGAgQQhAwwBCyAAQcAAIAJrIgRJIQUCQCAARQ0AIAAgBCAFGyIDQQNxIQYgAkGAgQVqIQdBACECAkAgA0EESQ0AIANB/ABxIQhBACECA0AgByACaiIDIAJBgIEEai0AADoAACADQQFqIAJBgYEEai0AADoAACADQQJqIAJBgoEEai0AADoAACADQQNqIAJBg4EEai0AADoAACAIIAJBBGoiAkcNAAsgBkUNAQsDQCAHIAJqIAJBgIEEai0AADoAACACQQFqIQIgBkF/aiIGDQALCyAFDQFBgIEFEAMgACAEayEAIARBgIEEaiEDCwJAIABBwABJDQADQCADEAMgA0HAAGohAyAAQUBqIgBBP0sNAAsLIABFDQBBACEGQQAhAgNAIAJBgIEFaiADIAJqLQAAOgAAIAJBAWohAiAAIAZBAWoiBkH/AXFLDQALCwuDPQFFf0EAIAAoAjwiAUH/gfwHcUEIeCABQRh4Qf+B/AdxciIBQRl3IAFBDndzIAFBA3ZzIAAoAjgiAkH/gfwHcUEIeCACQRh4Qf+B/AdxciICaiAAKAIgIgNB/4H8B3FBCHggA0EYeEH/gfwHcXIiBEEZdyAEQQ53cyAEQQN2cyAAKAIcIgNB/4H8B3FBCHggA0EYeEH/gfwHcXIiBWogACgCBCIDQf+B/AdxQQh4IANBGHhB/4H8B3FyIgZBGXcgBkEOd3MgBkEDdnMgACgCACIDQf+B/AdxQQh4IANBGHhB/4H8B3FyIgdqIAAoAiQiA0H/gfwHcUEIeCADQRh4Qf+B/AdxciIIaiACQQ93IAJBDXdzIAJBCnZzaiIDaiAAKAIYIglB/4H8B3FBCHggCUEYeEH/gfwHcXIiCkEZdyAKQQ53cyAKQQN2cyAAKAIUIglB/4H8B3FBCHggCUEYeEH/gfwHcXIiC2ogAmogACgCECIJQf+B/AdxQQh4IAlBGHhB/4H8B3FyIgxBGXcgDEEOd3MgDEEDdnMgACgCDCIJQf+B/AdxQQh4IAlBGHhB/4H8B3FyIg1qIAAoAjAiCUH/gfwHcUEIeCAJQRh4Qf+B/AdxciIOaiAAKAIIIglB/4H8B3FBCHggCUEYeEH/gfwHcXIiD0EZdyAPQQ53cyAPQQN2cyAGaiAAKAIoIglB/4H8B3FBCHggCUEYeEH/gfwHcXIiEGogAUEPdyABQQ13cyABQQp2c2oiCUEPdyAJQQ13cyAJQQp2c2oiEUEPdyARQQ13cyARQQp2c2oiEkEPdyASQQ13cyASQQp2c2oiE2ogACgCNCIUQf+B/AdxQQh4IBRBGHhB/4H8B3FyIhVBGXcgFUEOd3MgFUEDdnMgDmogEmogACgCLCIAQf+B/AdxQQh4IABBGHhB/4H8B3FyIhZBGXcgFkEOd3MgFkEDdnMgEGogEWogCEEZdyAIQQ53cyAIQQN2cyAEaiAJaiAFQRl3IAVBDndzIAVBA3ZzIApqIAFqIAtBGXcgC0EOd3MgC0EDdnMgDGogFWogDUEZdyANQQ53cyANQQN2cyAPaiAWaiADQQ93IANBDXdzIANBCnZzaiIUQQ93IBRBDXdzIBRBCnZzaiIXQQ93IBdBDXdzIBdBCnZzaiIYQQ93IBhBDXdzIBhBCnZzaiIZQQ93IBlBDXdzIBlBCnZzaiIaQQ93IBpBDXdzIBpBCnZzaiIbQQ93IBtBDXdzIBtBCnZzaiIcQRl3IBxBDndzIBxBA3ZzIAJBGXcgAkEOd3MgAkEDdnMgFWogGGogDkEZdyAOQQ53cyAOQQN2cyAWaiAXaiAQQRl3IBBBDndzIBBBA3ZzIAhqIBRqIBNBD3cgE0ENd3MgE0EKdnNqIh1BD3cgHUENd3MgHUEKdnNqIh5BD3cgHkENd3MgHkEKdnNqIh9qIBNBGXcgE0EOd3MgE0EDdnMgGGogA0EZdyADQQ53cyADQQN2cyABaiAZaiAfQQ93IB9BDXdzIB9BCnZzaiIgaiASQRl3IBJBDndzIBJBA3ZzIBdqIB9qIBFBGXcgEUEOd3MgEUEDdnMgFGogHmogCUEZdyAJQQ53cyAJQQN2cyADaiAdaiAcQQ93IBxBDXdzIBxBCnZzaiIhQQ93ICFBDXdzICFBCnZzaiIiQQ93ICJBDXdzICJBCnZzaiIjQQ93ICNBDXdzICNBCnZzaiIkaiAbQRl3IBtBDndzIBtBA3ZzIB5qICNqIBpBGXcgGkEOd3MgGkEDdnMgHWogImogGUEZdyAZQQ53cyAZQQN2cyATaiAhaiAYQRl3IBhBDndzIBhBA3ZzIBJqIBxqIBdBGXcgF0EOd3MgF0EDdnMgEWogG2ogFEEZdyAUQQ53cyAUQQN2cyAJaiAaaiAgQQ93ICBBDXdzICBBCnZzaiIlQQ93ICVBDXdzICVBCnZzaiImQQ93ICZBDXdzICZBCnZzaiInQQ93ICdBDXdzICdBCnZzaiIoQQ93IChBDXdzIChBCnZzaiIpQQ93IClBDXdzIClBCnZzaiIqQQ93ICpBDXdzICpBCnZzaiIrQRl3ICtBDndzICtBA3ZzIB9BGXcgH0EOd3MgH0EDdnMgG2ogJ2ogHkEZdyAeQQ53cyAeQQN2cyAaaiAmaiAdQRl3IB1BDndzIB1BA3ZzIBlqICVqICRBD3cgJEENd3MgJEEKdnNqIixBD3cgLEENd3MgLEEKdnNqIi1BD3cgLUENd3MgLUEKdnNqIi5qICRBGXcgJEEOd3MgJEEDdnMgJ2ogIEEZdyAgQQ53cyAgQQN2cyAcaiAoaiAuQQ93IC5BDXdzIC5BCnZzaiIvaiAjQRl3ICNBDndzICNBA3ZzICZqIC5qICJBGXcgIkEOd3MgIkEDdnMgJWogLWogIUEZdyAhQQ53cyAhQQN2cyAgaiAsaiArQQ93ICtBDXdzICtBCnZzaiIwQQ93IDBBDXdzIDBBCnZzaiIxQQ93IDFBDXdzIDFBCnZzaiIyQQ93IDJBDXdzIDJBCnZzaiIzaiAqQRl3ICpBDndzICpBA3ZzIC1qIDJqIClBGXcgKUEOd3MgKUEDdnMgLGogMWogKEEZdyAoQQ53cyAoQQN2cyAkaiAwaiAnQRl3ICdBDndzICdBA3ZzICNqICtqICZBGXcgJkEOd3MgJkEDdnMgImogKmogJUEZdyAlQQ53cyAlQQN2cyAhaiApaiAvQQ93IC9BDXdzIC9BCnZzaiI0QQ93IDRBDXdzIDRBCnZzaiI1QQ93IDVBDXdzIDVBCnZzaiI2QQ93IDZBDXdzIDZBCnZzaiI3QQ93IDdBDXdzIDdBCnZzaiI4QQ93IDhBDXdzIDhBCnZzaiI5QQ93IDlBDXdzIDlBCnZzaiI6IDggNCAuICwgISAbIBkgAyAOIARBACgC2IEFIjtBGncgO0EVd3MgO0EHd3NBACgC5IEFIjxqQQAoAuCBBSI9QQAoAtyBBSI+cyA7cSA9c2ogB2pBmN+olARqIgdBACgC1IEFIj9qIgAgDGogOyANaiA+IA9qID0gBmogACA+IDtzcSA+c2ogAEEadyAAQRV3cyAAQQd3c2pBkYndiQdqIkBBACgC0IEFIkFqIgwgACA7c3EgO3NqIAxBGncgDEEVd3MgDEEHd3NqQc/3g657aiJCQQAoAsyBBSJDaiINIAwgAHNxIABzaiANQRp3IA1BFXdzIA1BB3dzakGlt9fNfmoiREEAKALIgQUiAGoiDyANIAxzcSAMc2ogD0EadyAPQRV3cyAPQQd3c2pB24TbygNqIkUgQSBDIABzcSBDIABxcyAAQR53IABBE3dzIABBCndzaiAHaiIGaiIHaiAFIA9qIAogDWogCyAMaiAHIA8gDXNxIA1zaiAHQRp3IAdBFXdzIAdBB3dzakHxo8TPBWoiCiAGIABzIENxIAYgAHFzIAZBHncgBkETd3MgBkEKd3NqIEBqIgxqIgQgByAPc3EgD3NqIARBGncgBEEVd3MgBEEHd3NqQaSF/pF5aiILIAwgBnMgAHEgDCAGcXMgDEEedyAMQRN3cyAMQQp3c2ogQmoiDWoiDyAEIAdzcSAHc2ogD0EadyAPQRV3cyAPQQd3c2pB1b3x2HpqIkAgDSAMcyAGcSANIAxxcyANQR53IA1BE3dzIA1BCndzaiBEaiIGaiIHIA8gBHNxIARzaiAHQRp3IAdBFXdzIAdBB3dzakGY1Z7AfWoiQiAGIA1zIAxxIAYgDXFzIAZBHncgBkETd3MgBkEKd3NqIEVqIgxqIgVqIBYgB2ogECAPaiAIIARqIAUgByAPc3EgD3NqIAVBGncgBUEVd3MgBUEHd3NqQYG2jZQBaiIIIAwgBnMgDXEgDCAGcXMgDEEedyAMQRN3cyAMQQp3c2ogCmoiDWoiDyAFIAdzcSAHc2ogD0EadyAPQRV3cyAPQQd3c2pBvovGoQJqIg4gDSAMcyAGcSANIAxxcyANQR53IA1BE3dzIA1BCndzaiALaiIGaiIHIA8gBXNxIAVzaiAHQRp3IAdBFXdzIAdBB3dzakHD+7GoBWoiECAGIA1zIAxxIAYgDXFzIAZBHncgBkETd3MgBkEKd3NqIEBqIgxqIgQgByAPc3EgD3NqIARBGncgBEEVd3MgBEEHd3NqQfS6+ZUHaiIWIAwgBnMgDXEgDCAGcXMgDEEedyAMQRN3cyAMQQp3c2ogQmoiDWoiBWogASAEaiACIAdqIBUgD2ogBSAEIAdzcSAHc2ogBUEadyAFQRV3cyAFQQd3c2pB/uP6hnhqIgcgDSAMcyAGcSANIAxxcyANQR53IA1BE3dzIA1BCndzaiAIaiIBaiIGIAUgBHNxIARzaiAGQRp3IAZBFXdzIAZBB3dzakGnjfDeeWoiBCABIA1zIAxxIAEgDXFzIAFBHncgAUETd3MgAUEKd3NqIA5qIgJqIgwgBiAFc3EgBXNqIAxBGncgDEEVd3MgDEEHd3NqQfTi74x8aiIFIAIgAXMgDXEgAiABcXMgAkEedyACQRN3cyACQQp3c2ogEGoiA2oiDSAMIAZzcSAGc2ogDUEadyANQRV3cyANQQd3c2pBwdPtpH5qIgggAyACcyABcSADIAJxcyADQR53IANBE3dzIANBCndzaiAWaiIBaiIPIBdqIBEgDWogFCAMaiAJIAZqIA8gDSAMc3EgDHNqIA9BGncgD0EVd3MgD0EHd3NqQYaP+f1+aiIGIAEgA3MgAnEgASADcXMgAUEedyABQRN3cyABQQp3c2ogB2oiAmoiCSAPIA1zcSANc2ogCUEadyAJQRV3cyAJQQd3c2pBxruG/gBqIgwgAiABcyADcSACIAFxcyACQR53IAJBE3dzIAJBCndzaiAEaiIDaiIRIAkgD3NxIA9zaiARQRp3IBFBFXdzIBFBB3dzakHMw7KgAmoiDSADIAJzIAFxIAMgAnFzIANBHncgA0ETd3MgA0EKd3NqIAVqIgFqIhQgESAJc3EgCXNqIBRBGncgFEEVd3MgFEEHd3NqQe/YpO8CaiIPIAEgA3MgAnEgASADcXMgAUEedyABQRN3cyABQQp3c2ogCGoiAmoiF2ogEyAUaiAYIBFqIBIgCWogFyAUIBFzcSARc2ogF0EadyAXQRV3cyAXQQd3c2pBqonS0wRqIhggAiABcyADcSACIAFxcyACQR53IAJBE3dzIAJBCndzaiAGaiIDaiIJIBcgFHNxIBRzaiAJQRp3IAlBFXdzIAlBB3dzakHc08LlBWoiFCADIAJzIAFxIAMgAnFzIANBHncgA0ETd3MgA0EKd3NqIAxqIgFqIhEgCSAXc3EgF3NqIBFBGncgEUEVd3MgEUEHd3NqQdqR5rcHaiIXIAEgA3MgAnEgASADcXMgAUEedyABQRN3cyABQQp3c2ogDWoiAmoiEiARIAlzcSAJc2ogEkEadyASQRV3cyASQQd3c2pB0qL5wXlqIhkgAiABcyADcSACIAFxcyACQR53IAJBE3dzIAJBCndzaiAPaiIDaiITaiAeIBJqIBogEWogHSAJaiATIBIgEXNxIBFzaiATQRp3IBNBFXdzIBNBB3dzakHtjMfBemoiGiADIAJzIAFxIAMgAnFzIANBHncgA0ETd3MgA0EKd3NqIBhqIgFqIgkgEyASc3EgEnNqIAlBGncgCUEVd3MgCUEHd3NqQcjPjIB7aiIYIAEgA3MgAnEgASADcXMgAUEedyABQRN3cyABQQp3c2ogFGoiAmoiESAJIBNzcSATc2ogEUEadyARQRV3cyARQQd3c2pBx//l+ntqIhQgAiABcyADcSACIAFxcyACQR53IAJBE3dzIAJBCndzaiAXaiIDaiISIBEgCXNxIAlzaiASQRp3IBJBFXdzIBJBB3dzakHzl4C3fGoiFyADIAJzIAFxIAMgAnFzIANBHncgA0ETd3MgA0EKd3NqIBlqIgFqIhNqICAgEmogHCARaiAfIAlqIBMgEiARc3EgEXNqIBNBGncgE0EVd3MgE0EHd3NqQceinq19aiIZIAEgA3MgAnEgASADcXMgAUEedyABQRN3cyABQQp3c2ogGmoiAmoiCSATIBJzcSASc2ogCUEadyAJQRV3cyAJQQd3c2pB0capNmoiGiACIAFzIANxIAIgAXFzIAJBHncgAkETd3MgAkEKd3NqIBhqIgNqIhEgCSATc3EgE3NqIBFBGncgEUEVd3MgEUEHd3NqQefSpKEBaiIYIAMgAnMgAXEgAyACcXMgA0EedyADQRN3cyADQQp3c2ogFGoiAWoiEiARIAlzcSAJc2ogEkEadyASQRV3cyASQQd3c2pBhZXcvQJqIhQgASADcyACcSABIANxcyABQR53IAFBE3dzIAFBCndzaiAXaiICaiITICNqICYgEmogIiARaiAlIAlqIBMgEiARc3EgEXNqIBNBGncgE0EVd3MgE0EHd3NqQbjC7PACaiIXIAIgAXMgA3EgAiABcXMgAkEedyACQRN3cyACQQp3c2ogGWoiA2oiCSATIBJzcSASc2ogCUEadyAJQRV3cyAJQQd3c2pB/Nux6QRqIhkgAyACcyABcSADIAJxcyADQR53IANBE3dzIANBCndzaiAaaiIBaiIRIAkgE3NxIBNzaiARQRp3IBFBFXdzIBFBB3dzakGTmuCZBWoiGiABIANzIAJxIAEgA3FzIAFBHncgAUETd3MgAUEKd3NqIBhqIgJqIhIgESAJc3EgCXNqIBJBGncgEkEVd3MgEkEHd3NqQdTmqagGaiIYIAIgAXMgA3EgAiABcXMgAkEedyACQRN3cyACQQp3c2ogFGoiA2oiE2ogKCASaiAkIBFqICcgCWogEyASIBFzcSARc2ogE0EadyATQRV3cyATQQd3c2pBu5WoswdqIhQgAyACcyABcSADIAJxcyADQR53IANBE3dzIANBCndzaiAXaiIBaiIJIBMgEnNxIBJzaiAJQRp3IAlBFXdzIAlBB3dzakGukouOeGoiFyABIANzIAJxIAEgA3FzIAFBHncgAUETd3MgAUEKd3NqIBlqIgJqIhEgCSATc3EgE3NqIBFBGncgEUEVd3MgEUEHd3NqQYXZyJN5aiIZIAIgAXMgA3EgAiABcXMgAkEedyACQRN3cyACQQp3c2ogGmoiA2oiEiARIAlzcSAJc2ogEkEadyASQRV3cyASQQd3c2pBodH/lXpqIhogAyACcyABcSADIAJxcyADQR53IANBE3dzIANBCndzaiAYaiIBaiITaiAqIBJqIC0gEWogKSAJaiATIBIgEXNxIBFzaiATQRp3IBNBFXdzIBNBB3dzakHLzOnAemoiGCABIANzIAJxIAEgA3FzIAFBHncgAUETd3MgAUEKd3NqIBRqIgJqIgkgEyASc3EgEnNqIAlBGncgCUEVd3MgCUEHd3NqQfCWrpJ8aiIUIAIgAXMgA3EgAiABcXMgAkEedyACQRN3cyACQQp3c2ogF2oiA2oiESAJIBNzcSATc2ogEUEadyARQRV3cyARQQd3c2pBo6Oxu3xqIhcgAyACcyABcSADIAJxcyADQR53IANBE3dzIANBCndzaiAZaiIBaiISIBEgCXNxIAlzaiASQRp3IBJBFXdzIBJBB3dzakGZ0MuMfWoiGSABIANzIAJxIAEgA3FzIAFBHncgAUETd3MgAUEKd3NqIBpqIgJqIhNqIDAgEmogLyARaiArIAlqIBMgEiARc3EgEXNqIBNBGncgE0EVd3MgE0EHd3NqQaSM5LR9aiIaIAIgAXMgA3EgAiABcXMgAkEedyACQRN3cyACQQp3c2ogGGoiA2oiCSATIBJzcSASc2ogCUEadyAJQRV3cyAJQQd3c2pBheu4oH9qIhggAyACcyABcSADIAJxcyADQR53IANBE3dzIANBCndzaiAUaiIBaiIRIAkgE3NxIBNzaiARQRp3IBFBFXdzIBFBB3dzakHwwKqDAWoiFCABIANzIAJxIAEgA3FzIAFBHncgAUETd3MgAUEKd3NqIBdqIgJqIhIgESAJc3EgCXNqIBJBGncgEkEVd3MgEkEHd3NqQZaCk80BaiIXIAIgAXMgA3EgAiABcXMgAkEedyACQRN3cyACQQp3c2ogGWoiA2oiEyA2aiAyIBJqIDUgEWogMSAJaiATIBIgEXNxIBFzaiATQRp3IBNBFXdzIBNBB3dzakGI2N3xAWoiGSADIAJzIAFxIAMgAnFzIANBHncgA0ETd3MgA0EKd3NqIBpqIgFqIgkgEyASc3EgEnNqIAlBGncgCUEVd3MgCUEHd3NqQczuoboCaiIaIAEgA3MgAnEgASADcXMgAUEedyABQRN3cyABQQp3c2ogGGoiAmoiESAJIBNzcSATc2ogEUEadyARQRV3cyARQQd3c2pBtfnCpQNqIhggAiABcyADcSACIAFxcyACQR53IAJBE3dzIAJBCndzaiAUaiIDaiISIBEgCXNxIAlzaiASQRp3IBJBFXdzIBJBB3dzakGzmfDIA2oiFCADIAJzIAFxIAMgAnFzIANBHncgA0ETd3MgA0EKd3NqIBdqIgFqIhNqICxBGXcgLEEOd3MgLEEDdnMgKGogNGogM0EPdyAzQQ13cyAzQQp2c2oiFyASaiA3IBFqIDMgCWogEyASIBFzcSARc2ogE0EadyATQRV3cyATQQd3c2pBytTi9gRqIhsgASADcyACcSABIANxcyABQR53IAFBE3dzIAFBCndzaiAZaiICaiIJIBMgEnNxIBJzaiAJQRp3IAlBFXdzIAlBB3dzakHPlPPcBWoiGSACIAFzIANxIAIgAXFzIAJBHncgAkETd3MgAkEKd3NqIBpqIgNqIhEgCSATc3EgE3NqIBFBGncgEUEVd3MgEUEHd3NqQfPfucEGaiIaIAMgAnMgAXEgAyACcXMgA0EedyADQRN3cyADQQp3c2ogGGoiAWoiEiARIAlzcSAJc2ogEkEadyASQRV3cyASQQd3c2pB7oW+pAdqIhwgASADcyACcSABIANxcyABQR53IAFBE3dzIAFBCndzaiAUaiICaiITaiAuQRl3IC5BDndzIC5BA3ZzICpqIDZqIC1BGXcgLUEOd3MgLUEDdnMgKWogNWogF0EPdyAXQQ13cyAXQQp2c2oiFEEPdyAUQQ13cyAUQQp2c2oiGCASaiA5IBFqIBQgCWogEyASIBFzcSARc2ogE0EadyATQRV3cyATQQd3c2pB78aVxQdqIgkgAiABcyADcSACIAFxcyACQR53IAJBE3dzIAJBCndzaiAbaiIDaiIRIBMgEnNxIBJzaiARQRp3IBFBFXdzIBFBB3dzakGU8KGmeGoiGyADIAJzIAFxIAMgAnFzIANBHncgA0ETd3MgA0EKd3NqIBlqIgFqIhIgESATc3EgE3NqIBJBGncgEkEVd3MgEkEHd3NqQYiEnOZ4aiIZIAEgA3MgAnEgASADcXMgAUEedyABQRN3cyABQQp3c2ogGmoiAmoiEyASIBFzcSARc2ogE0EadyATQRV3cyATQQd3c2pB+v/7hXlqIhogAiABcyADcSACIAFxcyACQR53IAJBE3dzIAJBCndzaiAcaiIDaiIUIDxqNgLkgQVBACA/IAMgAnMgAXEgAyACcXMgA0EedyADQRN3cyADQQp3c2ogCWoiASADcyACcSABIANxcyABQR53IAFBE3dzIAFBCndzaiAbaiICIAFzIANxIAIgAXFzIAJBHncgAkETd3MgAkEKd3NqIBlqIgMgAnMgAXEgAyACcXMgA0EedyADQRN3cyADQQp3c2ogGmoiCWo2AtSBBUEAID0gL0EZdyAvQQ53cyAvQQN2cyAraiA3aiAYQQ93IBhBDXdzIBhBCnZzaiIYIBFqIBQgEyASc3EgEnNqIBRBGncgFEEVd3MgFEEHd3NqQevZwaJ6aiIZIAFqIhFqNgLggQVBACBBIAkgA3MgAnEgCSADcXMgCUEedyAJQRN3cyAJQQp3c2ogGWoiAWo2AtCBBUEAID4gMEEZdyAwQQ53cyAwQQN2cyAvaiAXaiA6QQ93IDpBDXdzIDpBCnZzaiASaiARIBQgE3NxIBNzaiARQRp3IBFBFXdzIBFBB3dzakH3x+b3e2oiFyACaiISajYC3IEFQQAgQyABIAlzIANxIAEgCXFzIAFBHncgAUETd3MgAUEKd3NqIBdqIgJqNgLMgQVBACA7IDRBGXcgNEEOd3MgNEEDdnMgMGogOGogGEEPdyAYQQ13cyAYQQp2c2ogE2ogEiARIBRzcSAUc2ogEkEadyASQRV3cyASQQd3c2pB8vHFs3xqIhEgA2pqNgLYgQVBACAAIAIgAXMgCXEgAiABcXMgAkEedyACQRN3cyACQQp3c2ogEWpqNgLIgQULswYCBH8BfkEAKALAgQUiAEECdkEPcSIBQQJ0IgIgAigCgIEFQX8gAEEDdCIAdEF/c3FBgAEgAHRzNgKAgQUCQAJAAkAgAUEOSQ0AAkAgAUEORw0AQQBBADYCvIEFC0GAgQUQA0EAIQIMAQsgAUENRg0BIAFBAWohAgsgAiEDAkBBBiACa0EHcSIARQ0AIAIgAGohAyACQQJ0QYCBBWohAQNAIAFBADYCACABQQRqIQEgAEF/aiIADQALCyACQXlqQQdJDQACQEEGIANrIgBBCHENACADQQJ0IgFCADcCmIEFIAFCADcCkIEFIAFCADcCiIEFIAFCADcCgIEFIABBCEkNASADQQhqIQMLIANBAnRBgIEFaiEBA0AgAUIANwIAIAFBOGpCADcCACABQTBqQgA3AgAgAUEoakIANwIAIAFBIGpCADcCACABQRhqQgA3AgAgAUEQakIANwIAIAFBCGpCADcCACABQcAAaiEBDAALC0EAIQBBAEEAKQPAgQUiBKdBA3QiAUH4gfwHcUEIeCABQRh4Qf+B/AdxcjYCvIEFQQAgBEIdiKciAUH/gfwHcUEIeCABQRh4Qf+B/AdxcjYCuIEFQYCBBRADQQBBACgC5IEFIgFB/4H8B3FBCHggAUEYeEH/gfwHcXI2AuSBBUEAQQAoAuCBBSIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyNgLggQVBAEEAKALcgQUiAUH/gfwHcUEIeCABQRh4Qf+B/AdxcjYC3IEFQQBBACgC2IEFIgFB/4H8B3FBCHggAUEYeEH/gfwHcXI2AtiBBUEAQQAoAtSBBSIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyNgLUgQVBAEEAKALQgQUiAUH/gfwHcUEIeCABQRh4Qf+B/AdxcjYC0IEFQQBBACgCzIEFIgFB/4H8B3FBCHggAUEYeEH/gfwHcXI2AsyBBUEAQQAoAsiBBSIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyNgLIgQUCQEEAKALogQUiAkUNAEEAIQEDQCABQYCBBGogAUHIgQVqLQAAOgAAIAFBAWohASACIABBAWoiAEH/AXFLDQALCwsGAEGAgQULowEAQQBCADcDwIEFQQBBHEEgIAFB4AFGIgEbNgLogQVBAEKnn+anxvST/b5/Qquzj/yRo7Pw2wAgARs3A+CBBUEAQrGWgP6fooWs6ABC/6S5iMWR2oKbfyABGzcD2IEFQQBCl7rDg5Onlod3QvLmu+Ojp/2npX8gARs3A9CBBUEAQti9loj8oLW+NkLnzKfQ1tDrs7t/IAEbNwPIgQUgABACEAQLCwwBAEGAgAQLBHAAAAA=";
var hash$a = "8ed695a3";
var wasmJson$a = {
	name: name$a,
	data: data$a,
	hash: hash$a
};

const mutex$a = new Mutex();
let wasmCache$a = null;
/**
 * Calculates SHA-2 (SHA-224) hash
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function sha224(data) {
    if (wasmCache$a === null) {
        return lockedCreate(mutex$a, wasmJson$a, 28).then((wasm) => {
            wasmCache$a = wasm;
            return wasmCache$a.calculate(data, 224);
        });
    }
    try {
        const hash = wasmCache$a.calculate(data, 224);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new SHA-2 (SHA-224) hash instance
 */
function createSHA224() {
    return WASMInterface(wasmJson$a, 28).then((wasm) => {
        wasm.init(224);
        const obj = {
            init: () => {
                wasm.init(224);
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 64,
            digestSize: 28,
        };
        return obj;
    });
}

const mutex$9 = new Mutex();
let wasmCache$9 = null;
/**
 * Calculates SHA-2 (SHA-256) hash
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function sha256(data) {
    if (wasmCache$9 === null) {
        return lockedCreate(mutex$9, wasmJson$a, 32).then((wasm) => {
            wasmCache$9 = wasm;
            return wasmCache$9.calculate(data, 256);
        });
    }
    try {
        const hash = wasmCache$9.calculate(data, 256);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new SHA-2 (SHA-256) hash instance
 */
function createSHA256() {
    return WASMInterface(wasmJson$a, 32).then((wasm) => {
        wasm.init(256);
        const obj = {
            init: () => {
                wasm.init(256);
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 64,
            digestSize: 32,
        };
        return obj;
    });
}

var name$9 = "sha512";
var data$9 = "AGFzbQEAAAABEQRgAAF/YAF/AGAAAGACf38AAwgHAAEBAQIAAwUEAQECAgYPAn8BQYCABAt/AEGAgAQLB4IBCQZtZW1vcnkCAA9fX3N0YWNrX3BvaW50ZXIDAA5IYXNoX0dldEJ1ZmZlcgAACUhhc2hfSW5pdAABC0hhc2hfVXBkYXRlAAIKSGFzaF9GaW5hbAAEDUhhc2hfR2V0U3RhdGUABQ5IYXNoX0NhbGN1bGF0ZQAGClNUQVRFX1NJWkUDAQrgaQcGAEGAgQQLmwIAQQBCADcDgIIFQQBBMEHAACAAQYADRiIAGzYCyIIFQQBCpJ/p99uD0trHAEL5wvibkaOz8NsAIAAbNwPAggVBAEKnn+an1sGLhltC6/qG2r+19sEfIAAbNwO4ggVBAEKRquDC9tCS2o5/Qp/Y+dnCkdqCm38gABs3A7CCBUEAQrGWgP7/zMmZ5wBC0YWa7/rPlIfRACAAGzcDqIIFQQBCubK5uI+b+5cVQvHt9Pilp/2npX8gABs3A6CCBUEAQpe6w4Ojq8CskX9Cq/DT9K/uvLc8IAAbNwOYggVBAEKHqvOzo6WKzeIAQrvOqqbY0Ouzu38gABs3A5CCBUEAQti9lojcq+fdS0KIkvOd/8z5hOoAIAAbNwOIggUL+gICAX4Hf0EAQQApA4CCBSIBIACtfDcDgIIFAkACQAJAIAGnQf8AcSICDQBBgIEEIQMMAQsgAEGAASACayIESSEFAkAgAEUNACAAIAQgBRsiA0EDcSEGIAJBgIEFaiEHQQAhAgJAIANBBEkNACADQfwBcSEIQQAhAgNAIAcgAmoiAyACQYCBBGotAAA6AAAgA0EBaiACQYGBBGotAAA6AAAgA0ECaiACQYKBBGotAAA6AAAgA0EDaiACQYOBBGotAAA6AAAgCCACQQRqIgJHDQALIAZFDQELA0AgByACaiACQYCBBGotAAA6AAAgAkEBaiECIAZBf2oiBg0ACwsgBQ0BQYCBBRADIAAgBGshACAEQYCBBGohAwsCQCAAQYABSQ0AA0AgAxADIANBgAFqIQMgAEGAf2oiAEH/AEsNAAsLIABFDQBBACEGQQAhAgNAIAJBgIEFaiADIAJqLQAAOgAAIAJBAWohAiAAIAZBAWoiBkH/AXFLDQALCwvcVgFWfkEAIAApAwgiAUI4hiABQoD+A4NCKIaEIAFCgID8B4NCGIYgAUKAgID4D4NCCIaEhCABQgiIQoCAgPgPgyABQhiIQoCA/AeDhCABQiiIQoD+A4MgAUI4iISEhCICQj+JIAJCOImFIAJCB4iFIAApAwAiAUI4hiABQoD+A4NCKIaEIAFCgID8B4NCGIYgAUKAgID4D4NCCIaEhCABQgiIQoCAgPgPgyABQhiIQoCA/AeDhCABQiiIQoD+A4MgAUI4iISEhCIDfCAAKQNIIgFCOIYgAUKA/gODQiiGhCABQoCA/AeDQhiGIAFCgICA+A+DQgiGhIQgAUIIiEKAgID4D4MgAUIYiEKAgPwHg4QgAUIoiEKA/gODIAFCOIiEhIQiBHwgACkDcCIBQjiGIAFCgP4Dg0IohoQgAUKAgPwHg0IYhiABQoCAgPgPg0IIhoSEIAFCCIhCgICA+A+DIAFCGIhCgID8B4OEIAFCKIhCgP4DgyABQjiIhISEIgVCLYkgBUIDiYUgBUIGiIV8IgZCP4kgBkI4iYUgBkIHiIUgACkDeCIBQjiGIAFCgP4Dg0IohoQgAUKAgPwHg0IYhiABQoCAgPgPg0IIhoSEIAFCCIhCgICA+A+DIAFCGIhCgID8B4OEIAFCKIhCgP4DgyABQjiIhISEIgd8IARCP4kgBEI4iYUgBEIHiIUgACkDQCIBQjiGIAFCgP4Dg0IohoQgAUKAgPwHg0IYhiABQoCAgPgPg0IIhoSEIAFCCIhCgICA+A+DIAFCGIhCgID8B4OEIAFCKIhCgP4DgyABQjiIhISEIgh8IAApAxAiAUI4hiABQoD+A4NCKIaEIAFCgID8B4NCGIYgAUKAgID4D4NCCIaEhCABQgiIQoCAgPgPgyABQhiIQoCA/AeDhCABQiiIQoD+A4MgAUI4iISEhCIJQj+JIAlCOImFIAlCB4iFIAJ8IAApA1AiAUI4hiABQoD+A4NCKIaEIAFCgID8B4NCGIYgAUKAgID4D4NCCIaEhCABQgiIQoCAgPgPgyABQhiIQoCA/AeDhCABQiiIQoD+A4MgAUI4iISEhCIKfCAHQi2JIAdCA4mFIAdCBoiFfCILfCAAKQM4IgFCOIYgAUKA/gODQiiGhCABQoCA/AeDQhiGIAFCgICA+A+DQgiGhIQgAUIIiEKAgID4D4MgAUIYiEKAgPwHg4QgAUIoiEKA/gODIAFCOIiEhIQiDEI/iSAMQjiJhSAMQgeIhSAAKQMwIgFCOIYgAUKA/gODQiiGhCABQoCA/AeDQhiGIAFCgICA+A+DQgiGhIQgAUIIiEKAgID4D4MgAUIYiEKAgPwHg4QgAUIoiEKA/gODIAFCOIiEhIQiDXwgB3wgACkDKCIBQjiGIAFCgP4Dg0IohoQgAUKAgPwHg0IYhiABQoCAgPgPg0IIhoSEIAFCCIhCgICA+A+DIAFCGIhCgID8B4OEIAFCKIhCgP4DgyABQjiIhISEIg5CP4kgDkI4iYUgDkIHiIUgACkDICIBQjiGIAFCgP4Dg0IohoQgAUKAgPwHg0IYhiABQoCAgPgPg0IIhoSEIAFCCIhCgICA+A+DIAFCGIhCgID8B4OEIAFCKIhCgP4DgyABQjiIhISEIg98IAApA2giAUI4hiABQoD+A4NCKIaEIAFCgID8B4NCGIYgAUKAgID4D4NCCIaEhCABQgiIQoCAgPgPgyABQhiIQoCA/AeDhCABQiiIQoD+A4MgAUI4iISEhCIQfCAAKQMYIgFCOIYgAUKA/gODQiiGhCABQoCA/AeDQhiGIAFCgICA+A+DQgiGhIQgAUIIiEKAgID4D4MgAUIYiEKAgPwHg4QgAUIoiEKA/gODIAFCOIiEhIQiEUI/iSARQjiJhSARQgeIhSAJfCAAKQNYIgFCOIYgAUKA/gODQiiGhCABQoCA/AeDQhiGIAFCgICA+A+DQgiGhIQgAUIIiEKAgID4D4MgAUIYiEKAgPwHg4QgAUIoiEKA/gODIAFCOIiEhIQiEnwgBkItiSAGQgOJhSAGQgaIhXwiE0ItiSATQgOJhSATQgaIhXwiFEItiSAUQgOJhSAUQgaIhXwiFUItiSAVQgOJhSAVQgaIhXwiFnwgBUI/iSAFQjiJhSAFQgeIhSAQfCAVfCAAKQNgIgFCOIYgAUKA/gODQiiGhCABQoCA/AeDQhiGIAFCgICA+A+DQgiGhIQgAUIIiEKAgID4D4MgAUIYiEKAgPwHg4QgAUIoiEKA/gODIAFCOIiEhIQiF0I/iSAXQjiJhSAXQgeIhSASfCAUfCAKQj+JIApCOImFIApCB4iFIAR8IBN8IAhCP4kgCEI4iYUgCEIHiIUgDHwgBnwgDUI/iSANQjiJhSANQgeIhSAOfCAFfCAPQj+JIA9COImFIA9CB4iFIBF8IBd8IAtCLYkgC0IDiYUgC0IGiIV8IhhCLYkgGEIDiYUgGEIGiIV8IhlCLYkgGUIDiYUgGUIGiIV8IhpCLYkgGkIDiYUgGkIGiIV8IhtCLYkgG0IDiYUgG0IGiIV8IhxCLYkgHEIDiYUgHEIGiIV8Ih1CLYkgHUIDiYUgHUIGiIV8Ih5CP4kgHkI4iYUgHkIHiIUgB0I/iSAHQjiJhSAHQgeIhSAFfCAafCAQQj+JIBBCOImFIBBCB4iFIBd8IBl8IBJCP4kgEkI4iYUgEkIHiIUgCnwgGHwgFkItiSAWQgOJhSAWQgaIhXwiH0ItiSAfQgOJhSAfQgaIhXwiIEItiSAgQgOJhSAgQgaIhXwiIXwgFkI/iSAWQjiJhSAWQgeIhSAafCALQj+JIAtCOImFIAtCB4iFIAZ8IBt8ICFCLYkgIUIDiYUgIUIGiIV8IiJ8IBVCP4kgFUI4iYUgFUIHiIUgGXwgIXwgFEI/iSAUQjiJhSAUQgeIhSAYfCAgfCATQj+JIBNCOImFIBNCB4iFIAt8IB98IB5CLYkgHkIDiYUgHkIGiIV8IiNCLYkgI0IDiYUgI0IGiIV8IiRCLYkgJEIDiYUgJEIGiIV8IiVCLYkgJUIDiYUgJUIGiIV8IiZ8IB1CP4kgHUI4iYUgHUIHiIUgIHwgJXwgHEI/iSAcQjiJhSAcQgeIhSAffCAkfCAbQj+JIBtCOImFIBtCB4iFIBZ8ICN8IBpCP4kgGkI4iYUgGkIHiIUgFXwgHnwgGUI/iSAZQjiJhSAZQgeIhSAUfCAdfCAYQj+JIBhCOImFIBhCB4iFIBN8IBx8ICJCLYkgIkIDiYUgIkIGiIV8IidCLYkgJ0IDiYUgJ0IGiIV8IihCLYkgKEIDiYUgKEIGiIV8IilCLYkgKUIDiYUgKUIGiIV8IipCLYkgKkIDiYUgKkIGiIV8IitCLYkgK0IDiYUgK0IGiIV8IixCLYkgLEIDiYUgLEIGiIV8Ii1CP4kgLUI4iYUgLUIHiIUgIUI/iSAhQjiJhSAhQgeIhSAdfCApfCAgQj+JICBCOImFICBCB4iFIBx8ICh8IB9CP4kgH0I4iYUgH0IHiIUgG3wgJ3wgJkItiSAmQgOJhSAmQgaIhXwiLkItiSAuQgOJhSAuQgaIhXwiL0ItiSAvQgOJhSAvQgaIhXwiMHwgJkI/iSAmQjiJhSAmQgeIhSApfCAiQj+JICJCOImFICJCB4iFIB58ICp8IDBCLYkgMEIDiYUgMEIGiIV8IjF8ICVCP4kgJUI4iYUgJUIHiIUgKHwgMHwgJEI/iSAkQjiJhSAkQgeIhSAnfCAvfCAjQj+JICNCOImFICNCB4iFICJ8IC58IC1CLYkgLUIDiYUgLUIGiIV8IjJCLYkgMkIDiYUgMkIGiIV8IjNCLYkgM0IDiYUgM0IGiIV8IjRCLYkgNEIDiYUgNEIGiIV8IjV8ICxCP4kgLEI4iYUgLEIHiIUgL3wgNHwgK0I/iSArQjiJhSArQgeIhSAufCAzfCAqQj+JICpCOImFICpCB4iFICZ8IDJ8IClCP4kgKUI4iYUgKUIHiIUgJXwgLXwgKEI/iSAoQjiJhSAoQgeIhSAkfCAsfCAnQj+JICdCOImFICdCB4iFICN8ICt8IDFCLYkgMUIDiYUgMUIGiIV8IjZCLYkgNkIDiYUgNkIGiIV8IjdCLYkgN0IDiYUgN0IGiIV8IjhCLYkgOEIDiYUgOEIGiIV8IjlCLYkgOUIDiYUgOUIGiIV8IjpCLYkgOkIDiYUgOkIGiIV8IjtCLYkgO0IDiYUgO0IGiIV8IjxCP4kgPEI4iYUgPEIHiIUgMEI/iSAwQjiJhSAwQgeIhSAsfCA4fCAvQj+JIC9COImFIC9CB4iFICt8IDd8IC5CP4kgLkI4iYUgLkIHiIUgKnwgNnwgNUItiSA1QgOJhSA1QgaIhXwiPUItiSA9QgOJhSA9QgaIhXwiPkItiSA+QgOJhSA+QgaIhXwiP3wgNUI/iSA1QjiJhSA1QgeIhSA4fCAxQj+JIDFCOImFIDFCB4iFIC18IDl8ID9CLYkgP0IDiYUgP0IGiIV8IkB8IDRCP4kgNEI4iYUgNEIHiIUgN3wgP3wgM0I/iSAzQjiJhSAzQgeIhSA2fCA+fCAyQj+JIDJCOImFIDJCB4iFIDF8ID18IDxCLYkgPEIDiYUgPEIGiIV8IkFCLYkgQUIDiYUgQUIGiIV8IkJCLYkgQkIDiYUgQkIGiIV8IkNCLYkgQ0IDiYUgQ0IGiIV8IkR8IDtCP4kgO0I4iYUgO0IHiIUgPnwgQ3wgOkI/iSA6QjiJhSA6QgeIhSA9fCBCfCA5Qj+JIDlCOImFIDlCB4iFIDV8IEF8IDhCP4kgOEI4iYUgOEIHiIUgNHwgPHwgN0I/iSA3QjiJhSA3QgeIhSAzfCA7fCA2Qj+JIDZCOImFIDZCB4iFIDJ8IDp8IEBCLYkgQEIDiYUgQEIGiIV8IkVCLYkgRUIDiYUgRUIGiIV8IkZCLYkgRkIDiYUgRkIGiIV8IkdCLYkgR0IDiYUgR0IGiIV8IkhCLYkgSEIDiYUgSEIGiIV8IklCLYkgSUIDiYUgSUIGiIV8IkpCLYkgSkIDiYUgSkIGiIV8IksgSSBFID8gPSAyICwgKiAiICAgFiAGIBcgCEEAKQOoggUiTEIyiSBMQi6JhSBMQheJhUEAKQPAggUiTXxBACkDuIIFIk5BACkDsIIFIk+FIEyDIE6FfCADfEKi3KK5jfOLxcIAfCIDQQApA6CCBSJQfCIBIA98IEwgEXwgTyAJfCBOIAJ8IAEgTyBMhYMgT4V8IAFCMokgAUIuiYUgAUIXiYV8Qs3LvZ+SktGb8QB8IlFBACkDmIIFIlJ8IgkgASBMhYMgTIV8IAlCMokgCUIuiYUgCUIXiYV8Qq/2tOL++b7gtX98IlNBACkDkIIFIlR8Ig8gCSABhYMgAYV8IA9CMokgD0IuiYUgD0IXiYV8Qry3p4zY9PbaaXwiVUEAKQOIggUiAXwiESAPIAmFgyAJhXwgEUIyiSARQi6JhSARQheJhXxCuOqimr/LsKs5fCJWIFIgVCABhYMgVCABg4UgAUIkiSABQh6JhSABQhmJhXwgA3wiAnwiA3wgDCARfCANIA98IA4gCXwgAyARIA+FgyAPhXwgA0IyiSADQi6JhSADQheJhXxCmaCXsJu+xPjZAHwiDSACIAGFIFSDIAIgAYOFIAJCJIkgAkIeiYUgAkIZiYV8IFF8Igl8IgggAyARhYMgEYV8IAhCMokgCEIuiYUgCEIXiYV8Qpuf5fjK1OCfkn98Ig4gCSAChSABgyAJIAKDhSAJQiSJIAlCHomFIAlCGYmFfCBTfCIPfCIRIAggA4WDIAOFfCARQjKJIBFCLomFIBFCF4mFfEKYgrbT3dqXjqt/fCJRIA8gCYUgAoMgDyAJg4UgD0IkiSAPQh6JhSAPQhmJhXwgVXwiAnwiAyARIAiFgyAIhXwgA0IyiSADQi6JhSADQheJhXxCwoSMmIrT6oNYfCJTIAIgD4UgCYMgAiAPg4UgAkIkiSACQh6JhSACQhmJhXwgVnwiCXwiDHwgEiADfCAKIBF8IAQgCHwgDCADIBGFgyARhXwgDEIyiSAMQi6JhSAMQheJhXxCvt/Bq5Tg1sESfCIEIAkgAoUgD4MgCSACg4UgCUIkiSAJQh6JhSAJQhmJhXwgDXwiD3wiESAMIAOFgyADhXwgEUIyiSARQi6JhSARQheJhXxCjOWS9+S34ZgkfCIKIA8gCYUgAoMgDyAJg4UgD0IkiSAPQh6JhSAPQhmJhXwgDnwiAnwiAyARIAyFgyAMhXwgA0IyiSADQi6JhSADQheJhXxC4un+r724n4bVAHwiEiACIA+FIAmDIAIgD4OFIAJCJIkgAkIeiYUgAkIZiYV8IFF8Igl8IgggAyARhYMgEYV8IAhCMokgCEIuiYUgCEIXiYV8Qu+S7pPPrpff8gB8IhcgCSAChSAPgyAJIAKDhSAJQiSJIAlCHomFIAlCGYmFfCBTfCIPfCIMfCAHIAh8IAUgA3wgECARfCAMIAggA4WDIAOFfCAMQjKJIAxCLomFIAxCF4mFfEKxrdrY47+s74B/fCIDIA8gCYUgAoMgDyAJg4UgD0IkiSAPQh6JhSAPQhmJhXwgBHwiBXwiAiAMIAiFgyAIhXwgAkIyiSACQi6JhSACQheJhXxCtaScrvLUge6bf3wiCCAFIA+FIAmDIAUgD4OFIAVCJIkgBUIeiYUgBUIZiYV8IAp8IgZ8IgkgAiAMhYMgDIV8IAlCMokgCUIuiYUgCUIXiYV8QpTNpPvMrvzNQXwiDCAGIAWFIA+DIAYgBYOFIAZCJIkgBkIeiYUgBkIZiYV8IBJ8Igd8Ig8gCSAChYMgAoV8IA9CMokgD0IuiYUgD0IXiYV8QtKVxfeZuNrNZHwiBCAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBd8IgV8IhEgFHwgGCAPfCATIAl8IAsgAnwgESAPIAmFgyAJhXwgEUIyiSARQi6JhSARQheJhXxC48u8wuPwkd9vfCICIAUgB4UgBoMgBSAHg4UgBUIkiSAFQh6JhSAFQhmJhXwgA3wiBnwiCyARIA+FgyAPhXwgC0IyiSALQi6JhSALQheJhXxCtauz3Oi45+APfCIJIAYgBYUgB4MgBiAFg4UgBkIkiSAGQh6JhSAGQhmJhXwgCHwiB3wiEyALIBGFgyARhXwgE0IyiSATQi6JhSATQheJhXxC5biyvce5qIYkfCIPIAcgBoUgBYMgByAGg4UgB0IkiSAHQh6JhSAHQhmJhXwgDHwiBXwiFCATIAuFgyALhXwgFEIyiSAUQi6JhSAUQheJhXxC9YSsyfWNy/QtfCIRIAUgB4UgBoMgBSAHg4UgBUIkiSAFQh6JhSAFQhmJhXwgBHwiBnwiGHwgGiAUfCAVIBN8IBkgC3wgGCAUIBOFgyAThXwgGEIyiSAYQi6JhSAYQheJhXxCg8mb9aaVobrKAHwiFiAGIAWFIAeDIAYgBYOFIAZCJIkgBkIeiYUgBkIZiYV8IAJ8Igd8IgsgGCAUhYMgFIV8IAtCMokgC0IuiYUgC0IXiYV8QtT3h+rLu6rY3AB8IhkgByAGhSAFgyAHIAaDhSAHQiSJIAdCHomFIAdCGYmFfCAJfCIFfCITIAsgGIWDIBiFfCATQjKJIBNCLomFIBNCF4mFfEK1p8WYqJvi/PYAfCIYIAUgB4UgBoMgBSAHg4UgBUIkiSAFQh6JhSAFQhmJhXwgD3wiBnwiFCATIAuFgyALhXwgFEIyiSAUQi6JhSAUQheJhXxCq7+b866qlJ+Yf3wiGiAGIAWFIAeDIAYgBYOFIAZCJIkgBkIeiYUgBkIZiYV8IBF8Igd8IhV8IBwgFHwgHyATfCAbIAt8IBUgFCAThYMgE4V8IBVCMokgFUIuiYUgFUIXiYV8QpDk0O3SzfGYqH98IhsgByAGhSAFgyAHIAaDhSAHQiSJIAdCHomFIAdCGYmFfCAWfCIFfCILIBUgFIWDIBSFfCALQjKJIAtCLomFIAtCF4mFfEK/wuzHifnJgbB/fCIWIAUgB4UgBoMgBSAHg4UgBUIkiSAFQh6JhSAFQhmJhXwgGXwiBnwiEyALIBWFgyAVhXwgE0IyiSATQi6JhSATQheJhXxC5J289/v436y/f3wiGSAGIAWFIAeDIAYgBYOFIAZCJIkgBkIeiYUgBkIZiYV8IBh8Igd8IhQgEyALhYMgC4V8IBRCMokgFEIuiYUgFEIXiYV8QsKfou2z/oLwRnwiGCAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBp8IgV8IhV8IB4gFHwgISATfCAdIAt8IBUgFCAThYMgE4V8IBVCMokgFUIuiYUgFUIXiYV8QqXOqpj5qOTTVXwiGiAFIAeFIAaDIAUgB4OFIAVCJIkgBUIeiYUgBUIZiYV8IBt8IgZ8IgsgFSAUhYMgFIV8IAtCMokgC0IuiYUgC0IXiYV8Qu+EjoCe6pjlBnwiGyAGIAWFIAeDIAYgBYOFIAZCJIkgBkIeiYUgBkIZiYV8IBZ8Igd8IhMgCyAVhYMgFYV8IBNCMokgE0IuiYUgE0IXiYV8QvDcudDwrMqUFHwiFiAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBl8IgV8IhQgEyALhYMgC4V8IBRCMokgFEIuiYUgFEIXiYV8QvzfyLbU0MLbJ3wiGSAFIAeFIAaDIAUgB4OFIAVCJIkgBUIeiYUgBUIZiYV8IBh8IgZ8IhUgKHwgJCAUfCAnIBN8ICMgC3wgFSAUIBOFgyAThXwgFUIyiSAVQi6JhSAVQheJhXxCppKb4YWnyI0ufCIYIAYgBYUgB4MgBiAFg4UgBkIkiSAGQh6JhSAGQhmJhXwgGnwiB3wiCyAVIBSFgyAUhXwgC0IyiSALQi6JhSALQheJhXxC7dWQ1sW/m5bNAHwiGiAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBt8IgV8IhMgCyAVhYMgFYV8IBNCMokgE0IuiYUgE0IXiYV8Qt/n1uy5ooOc0wB8IhsgBSAHhSAGgyAFIAeDhSAFQiSJIAVCHomFIAVCGYmFfCAWfCIGfCIUIBMgC4WDIAuFfCAUQjKJIBRCLomFIBRCF4mFfELex73dyOqcheUAfCIWIAYgBYUgB4MgBiAFg4UgBkIkiSAGQh6JhSAGQhmJhXwgGXwiB3wiFXwgJiAUfCApIBN8ICUgC3wgFSAUIBOFgyAThXwgFUIyiSAVQi6JhSAVQheJhXxCqOXe47PXgrX2AHwiGSAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBh8IgV8IgsgFSAUhYMgFIV8IAtCMokgC0IuiYUgC0IXiYV8Qubdtr/kpbLhgX98IhggBSAHhSAGgyAFIAeDhSAFQiSJIAVCHomFIAVCGYmFfCAafCIGfCITIAsgFYWDIBWFfCATQjKJIBNCLomFIBNCF4mFfEK76oik0ZCLuZJ/fCIaIAYgBYUgB4MgBiAFg4UgBkIkiSAGQh6JhSAGQhmJhXwgG3wiB3wiFCATIAuFgyALhXwgFEIyiSAUQi6JhSAUQheJhXxC5IbE55SU+t+if3wiGyAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBZ8IgV8IhV8IC8gFHwgKyATfCAuIAt8IBUgFCAThYMgE4V8IBVCMokgFUIuiYUgFUIXiYV8QoHgiOK7yZmNqH98IhYgBSAHhSAGgyAFIAeDhSAFQiSJIAVCHomFIAVCGYmFfCAZfCIGfCILIBUgFIWDIBSFfCALQjKJIAtCLomFIAtCF4mFfEKRr+KHje7ipUJ8IhkgBiAFhSAHgyAGIAWDhSAGQiSJIAZCHomFIAZCGYmFfCAYfCIHfCITIAsgFYWDIBWFfCATQjKJIBNCLomFIBNCF4mFfEKw/NKysLSUtkd8IhggByAGhSAFgyAHIAaDhSAHQiSJIAdCHomFIAdCGYmFfCAafCIFfCIUIBMgC4WDIAuFfCAUQjKJIBRCLomFIBRCF4mFfEKYpL23nYO6yVF8IhogBSAHhSAGgyAFIAeDhSAFQiSJIAVCHomFIAVCGYmFfCAbfCIGfCIVfCAxIBR8IC0gE3wgMCALfCAVIBQgE4WDIBOFfCAVQjKJIBVCLomFIBVCF4mFfEKQ0parxcTBzFZ8IhsgBiAFhSAHgyAGIAWDhSAGQiSJIAZCHomFIAZCGYmFfCAWfCIHfCILIBUgFIWDIBSFfCALQjKJIAtCLomFIAtCF4mFfEKqwMS71bCNh3R8IhYgByAGhSAFgyAHIAaDhSAHQiSJIAdCHomFIAdCGYmFfCAZfCIFfCITIAsgFYWDIBWFfCATQjKJIBNCLomFIBNCF4mFfEK4o++Vg46otRB8IhkgBSAHhSAGgyAFIAeDhSAFQiSJIAVCHomFIAVCGYmFfCAYfCIGfCIUIBMgC4WDIAuFfCAUQjKJIBRCLomFIBRCF4mFfELIocvG66Kw0hl8IhggBiAFhSAHgyAGIAWDhSAGQiSJIAZCHomFIAZCGYmFfCAafCIHfCIVIDR8IDcgFHwgMyATfCA2IAt8IBUgFCAThYMgE4V8IBVCMokgFUIuiYUgFUIXiYV8QtPWhoqFgdubHnwiGiAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBt8IgV8IgsgFSAUhYMgFIV8IAtCMokgC0IuiYUgC0IXiYV8QpnXu/zN6Z2kJ3wiGyAFIAeFIAaDIAUgB4OFIAVCJIkgBUIeiYUgBUIZiYV8IBZ8IgZ8IhMgCyAVhYMgFYV8IBNCMokgE0IuiYUgE0IXiYV8QqiR7Yzelq/YNHwiFiAGIAWFIAeDIAYgBYOFIAZCJIkgBkIeiYUgBkIZiYV8IBl8Igd8IhQgEyALhYMgC4V8IBRCMokgFEIuiYUgFEIXiYV8QuO0pa68loOOOXwiGSAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBh8IgV8IhV8IDkgFHwgNSATfCA4IAt8IBUgFCAThYMgE4V8IBVCMokgFUIuiYUgFUIXiYV8QsuVhpquyarszgB8IhggBSAHhSAGgyAFIAeDhSAFQiSJIAVCHomFIAVCGYmFfCAafCIGfCILIBUgFIWDIBSFfCALQjKJIAtCLomFIAtCF4mFfELzxo+798myztsAfCIaIAYgBYUgB4MgBiAFg4UgBkIkiSAGQh6JhSAGQhmJhXwgG3wiB3wiEyALIBWFgyAVhXwgE0IyiSATQi6JhSATQheJhXxCo/HKtb3+m5foAHwiGyAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBZ8IgV8IhQgEyALhYMgC4V8IBRCMokgFEIuiYUgFEIXiYV8Qvzlvu/l3eDH9AB8IhYgBSAHhSAGgyAFIAeDhSAFQiSJIAVCHomFIAVCGYmFfCAZfCIGfCIVfCA7IBR8ID4gE3wgOiALfCAVIBQgE4WDIBOFfCAVQjKJIBVCLomFIBVCF4mFfELg3tyY9O3Y0vgAfCIZIAYgBYUgB4MgBiAFg4UgBkIkiSAGQh6JhSAGQhmJhXwgGHwiB3wiCyAVIBSFgyAUhXwgC0IyiSALQi6JhSALQheJhXxC8tbCj8qCnuSEf3wiGCAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBp8IgV8IhMgCyAVhYMgFYV8IBNCMokgE0IuiYUgE0IXiYV8QuzzkNOBwcDjjH98IhogBSAHhSAGgyAFIAeDhSAFQiSJIAVCHomFIAVCGYmFfCAbfCIGfCIUIBMgC4WDIAuFfCAUQjKJIBRCLomFIBRCF4mFfEKovIybov+/35B/fCIbIAYgBYUgB4MgBiAFg4UgBkIkiSAGQh6JhSAGQhmJhXwgFnwiB3wiFXwgQSAUfCBAIBN8IDwgC3wgFSAUIBOFgyAThXwgFUIyiSAVQi6JhSAVQheJhXxC6fuK9L2dm6ikf3wiFiAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBl8IgV8IgsgFSAUhYMgFIV8IAtCMokgC0IuiYUgC0IXiYV8QpXymZb7/uj8vn98IhkgBSAHhSAGgyAFIAeDhSAFQiSJIAVCHomFIAVCGYmFfCAYfCIGfCITIAsgFYWDIBWFfCATQjKJIBNCLomFIBNCF4mFfEKrpsmbrp7euEZ8IhggBiAFhSAHgyAGIAWDhSAGQiSJIAZCHomFIAZCGYmFfCAafCIHfCIUIBMgC4WDIAuFfCAUQjKJIBRCLomFIBRCF4mFfEKcw5nR7tnPk0p8IhogByAGhSAFgyAHIAaDhSAHQiSJIAdCHomFIAdCGYmFfCAbfCIFfCIVIEd8IEMgFHwgRiATfCBCIAt8IBUgFCAThYMgE4V8IBVCMokgFUIuiYUgFUIXiYV8QoeEg47ymK7DUXwiGyAFIAeFIAaDIAUgB4OFIAVCJIkgBUIeiYUgBUIZiYV8IBZ8IgZ8IgsgFSAUhYMgFIV8IAtCMokgC0IuiYUgC0IXiYV8Qp7Wg+/sup/tanwiFiAGIAWFIAeDIAYgBYOFIAZCJIkgBkIeiYUgBkIZiYV8IBl8Igd8IhMgCyAVhYMgFYV8IBNCMokgE0IuiYUgE0IXiYV8Qviiu/P+79O+dXwiGSAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBh8IgV8IhQgEyALhYMgC4V8IBRCMokgFEIuiYUgFEIXiYV8Qrrf3ZCn9Zn4BnwiHCAFIAeFIAaDIAUgB4OFIAVCJIkgBUIeiYUgBUIZiYV8IBp8IgZ8IhV8ID1CP4kgPUI4iYUgPUIHiIUgOXwgRXwgREItiSBEQgOJhSBEQgaIhXwiGCAUfCBIIBN8IEQgC3wgFSAUIBOFgyAThXwgFUIyiSAVQi6JhSAVQheJhXxCprGiltq437EKfCIaIAYgBYUgB4MgBiAFg4UgBkIkiSAGQh6JhSAGQhmJhXwgG3wiB3wiCyAVIBSFgyAUhXwgC0IyiSALQi6JhSALQheJhXxCrpvk98uA5p8RfCIbIAcgBoUgBYMgByAGg4UgB0IkiSAHQh6JhSAHQhmJhXwgFnwiBXwiEyALIBWFgyAVhXwgE0IyiSATQi6JhSATQheJhXxCm47xmNHmwrgbfCIdIAUgB4UgBoMgBSAHg4UgBUIkiSAFQh6JhSAFQhmJhXwgGXwiBnwiFCATIAuFgyALhXwgFEIyiSAUQi6JhSAUQheJhXxChPuRmNL+3e0ofCIeIAYgBYUgB4MgBiAFg4UgBkIkiSAGQh6JhSAGQhmJhXwgHHwiB3wiFXwgP0I/iSA/QjiJhSA/QgeIhSA7fCBHfCA+Qj+JID5COImFID5CB4iFIDp8IEZ8IBhCLYkgGEIDiYUgGEIGiIV8IhZCLYkgFkIDiYUgFkIGiIV8IhkgFHwgSiATfCAWIAt8IBUgFCAThYMgE4V8IBVCMokgFUIuiYUgFUIXiYV8QpPJnIa076rlMnwiCyAHIAaFIAWDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBp8IgV8IhMgFSAUhYMgFIV8IBNCMokgE0IuiYUgE0IXiYV8Qrz9pq6hwa/PPHwiGiAFIAeFIAaDIAUgB4OFIAVCJIkgBUIeiYUgBUIZiYV8IBt8IgZ8IhQgEyAVhYMgFYV8IBRCMokgFEIuiYUgFEIXiYV8QsyawODJ+NmOwwB8IhsgBiAFhSAHgyAGIAWDhSAGQiSJIAZCHomFIAZCGYmFfCAdfCIHfCIVIBQgE4WDIBOFfCAVQjKJIBVCLomFIBVCF4mFfEK2hfnZ7Jf14swAfCIcIAcgBoUgBYMgByAGg4UgB0IkiSAHQh6JhSAHQhmJhXwgHnwiBXwiFiBNfDcDwIIFQQAgUCAFIAeFIAaDIAUgB4OFIAVCJIkgBUIeiYUgBUIZiYV8IAt8IgYgBYUgB4MgBiAFg4UgBkIkiSAGQh6JhSAGQhmJhXwgGnwiByAGhSAFgyAHIAaDhSAHQiSJIAdCHomFIAdCGYmFfCAbfCIFIAeFIAaDIAUgB4OFIAVCJIkgBUIeiYUgBUIZiYV8IBx8Igt8NwOgggVBACBOIEBCP4kgQEI4iYUgQEIHiIUgPHwgSHwgGUItiSAZQgOJhSAZQgaIhXwiGSATfCAWIBUgFIWDIBSFfCAWQjKJIBZCLomFIBZCF4mFfEKq/JXjz7PKv9kAfCIaIAZ8IhN8NwO4ggVBACBSIAsgBYUgB4MgCyAFg4UgC0IkiSALQh6JhSALQhmJhXwgGnwiBnw3A5iCBUEAIE8gQUI/iSBBQjiJhSBBQgeIhSBAfCAYfCBLQi2JIEtCA4mFIEtCBoiFfCAUfCATIBYgFYWDIBWFfCATQjKJIBNCLomFIBNCF4mFfELs9dvWs/Xb5d8AfCIYIAd8IhR8NwOwggVBACBUIAYgC4UgBYMgBiALg4UgBkIkiSAGQh6JhSAGQhmJhXwgGHwiB3w3A5CCBUEAIEwgRUI/iSBFQjiJhSBFQgeIhSBBfCBJfCAZQi2JIBlCA4mFIBlCBoiFfCAVfCAUIBMgFoWDIBaFfCAUQjKJIBRCLomFIBRCF4mFfEKXsJ3SxLGGouwAfCITIAV8fDcDqIIFQQAgASAHIAaFIAuDIAcgBoOFIAdCJIkgB0IeiYUgB0IZiYV8IBN8fDcDiIIFC7ULAgF+BH9BACkDgIIFIgCnQQN2QQ9xIgFBA3QiAiACKQOAgQVCfyAAQgOGIgCGQn+Fg0KAASAAhoU3A4CBBSABQQFqIQMCQAJAAkAgAUEOSQ0AAkAgA0EPRw0AQQBCADcD+IEFC0GAgQUQA0EAIQRBACEDDAELIAMhASADQQdxIgRBB0YNAQsgA0EDdEGAgQVqIQFBACECA0AgAUIANwMAIAFBCGohASAEIAJBAWoiAnNBB0cNAAsgAyACaiEBCwJAIANBeGpBB0kNAAJAQQcgAWsiBEEIcQ0AIAFBA3QiAkIANwO4gQUgAkIANwOwgQUgAkIANwOogQUgAkIANwOggQUgAkIANwOYgQUgAkIANwOQgQUgAkIANwOIgQUgAkIANwOAgQUgBEEISQ0BIAFBCGohAQsgAUEDdEGAgQVqIQEDQCABQgA3AwAgAUH4AGpCADcDACABQfAAakIANwMAIAFB6ABqQgA3AwAgAUHgAGpCADcDACABQdgAakIANwMAIAFB0ABqQgA3AwAgAUHIAGpCADcDACABQcAAakIANwMAIAFBOGpCADcDACABQTBqQgA3AwAgAUEoakIANwMAIAFBIGpCADcDACABQRhqQgA3AwAgAUEQakIANwMAIAFBCGpCADcDACABQYABaiEBDAALC0EAIQJBAEEAKQOAggUiAEI7hiAAQiuGQoCAgICAgMD/AIOEIABCG4ZCgICAgIDgP4MgAEILhkKAgICA8B+DhIQgAEIFiEKAgID4D4MgAEIViEKAgPwHg4QgAEIliEKA/gODIABCA4ZCOIiEhIQ3A/iBBUGAgQUQA0EAQQApA8CCBSIAQjiGIABCgP4Dg0IohoQgAEKAgPwHg0IYhiAAQoCAgPgPg0IIhoSEIABCCIhCgICA+A+DIABCGIhCgID8B4OEIABCKIhCgP4DgyAAQjiIhISENwPAggVBAEEAKQO4ggUiAEI4hiAAQoD+A4NCKIaEIABCgID8B4NCGIYgAEKAgID4D4NCCIaEhCAAQgiIQoCAgPgPgyAAQhiIQoCA/AeDhCAAQiiIQoD+A4MgAEI4iISEhDcDuIIFQQBBACkDsIIFIgBCOIYgAEKA/gODQiiGhCAAQoCA/AeDQhiGIABCgICA+A+DQgiGhIQgAEIIiEKAgID4D4MgAEIYiEKAgPwHg4QgAEIoiEKA/gODIABCOIiEhIQ3A7CCBUEAQQApA6iCBSIAQjiGIABCgP4Dg0IohoQgAEKAgPwHg0IYhiAAQoCAgPgPg0IIhoSEIABCCIhCgICA+A+DIABCGIhCgID8B4OEIABCKIhCgP4DgyAAQjiIhISENwOoggVBAEEAKQOgggUiAEI4hiAAQoD+A4NCKIaEIABCgID8B4NCGIYgAEKAgID4D4NCCIaEhCAAQgiIQoCAgPgPgyAAQhiIQoCA/AeDhCAAQiiIQoD+A4MgAEI4iISEhDcDoIIFQQBBACkDmIIFIgBCOIYgAEKA/gODQiiGhCAAQoCA/AeDQhiGIABCgICA+A+DQgiGhIQgAEIIiEKAgID4D4MgAEIYiEKAgPwHg4QgAEIoiEKA/gODIABCOIiEhIQ3A5iCBUEAQQApA5CCBSIAQjiGIABCgP4Dg0IohoQgAEKAgPwHg0IYhiAAQoCAgPgPg0IIhoSEIABCCIhCgICA+A+DIABCGIhCgID8B4OEIABCKIhCgP4DgyAAQjiIhISENwOQggVBAEEAKQOIggUiAEI4hiAAQoD+A4NCKIaEIABCgID8B4NCGIYgAEKAgID4D4NCCIaEhCAAQgiIQoCAgPgPgyAAQhiIQoCA/AeDhCAAQiiIQoD+A4MgAEI4iISEhDcDiIIFAkBBACgCyIIFIgRFDQBBACEBA0AgAUGAgQRqIAFBiIIFai0AADoAACABQQFqIQEgBCACQQFqIgJB/wFxSw0ACwsLBgBBgIEFC6ECAEEAQgA3A4CCBUEAQTBBwAAgAUGAA0YiARs2AsiCBUEAQqSf6ffbg9LaxwBC+cL4m5Gjs/DbACABGzcDwIIFQQBCp5/mp9bBi4ZbQuv6htq/tfbBHyABGzcDuIIFQQBCkargwvbQktqOf0Kf2PnZwpHagpt/IAEbNwOwggVBAEKxloD+/8zJmecAQtGFmu/6z5SH0QAgARs3A6iCBUEAQrmyubiPm/uXFULx7fT4paf9p6V/IAEbNwOgggVBAEKXusODo6vArJF/Qqvw0/Sv7ry3PCABGzcDmIIFQQBCh6rzs6Olis3iAEK7zqqm2NDrs7t/IAEbNwOQggVBAELYvZaI3Kvn3UtCiJLznf/M+YTqACABGzcDiIIFIAAQAhAECwsMAQBBgIAECwTQAAAA";
var hash$9 = "922e1bd0";
var wasmJson$9 = {
	name: name$9,
	data: data$9,
	hash: hash$9
};

const mutex$8 = new Mutex();
let wasmCache$8 = null;
/**
 * Calculates SHA-2 (SHA-384) hash
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function sha384(data) {
    if (wasmCache$8 === null) {
        return lockedCreate(mutex$8, wasmJson$9, 48).then((wasm) => {
            wasmCache$8 = wasm;
            return wasmCache$8.calculate(data, 384);
        });
    }
    try {
        const hash = wasmCache$8.calculate(data, 384);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new SHA-2 (SHA-384) hash instance
 */
function createSHA384() {
    return WASMInterface(wasmJson$9, 48).then((wasm) => {
        wasm.init(384);
        const obj = {
            init: () => {
                wasm.init(384);
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 128,
            digestSize: 48,
        };
        return obj;
    });
}

const mutex$7 = new Mutex();
let wasmCache$7 = null;
/**
 * Calculates SHA-2 (SHA-512) hash
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function sha512(data) {
    if (wasmCache$7 === null) {
        return lockedCreate(mutex$7, wasmJson$9, 64).then((wasm) => {
            wasmCache$7 = wasm;
            return wasmCache$7.calculate(data, 512);
        });
    }
    try {
        const hash = wasmCache$7.calculate(data, 512);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new SHA-2 (SHA-512) hash instance
 */
function createSHA512() {
    return WASMInterface(wasmJson$9, 64).then((wasm) => {
        wasm.init(512);
        const obj = {
            init: () => {
                wasm.init(512);
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 128,
            digestSize: 64,
        };
        return obj;
    });
}

var name$8 = "xxhash32";
var data$8 = "AGFzbQEAAAABEQRgAAF/YAF/AGAAAGACf38AAwcGAAEBAgADBQQBAQICBg8CfwFBgIAEC38AQYCABAsHggEJBm1lbW9yeQIAD19fc3RhY2tfcG9pbnRlcgMADkhhc2hfR2V0QnVmZmVyAAAJSGFzaF9Jbml0AAELSGFzaF9VcGRhdGUAAgpIYXNoX0ZpbmFsAAMNSGFzaF9HZXRTdGF0ZQAEDkhhc2hfQ2FsY3VsYXRlAAUKU1RBVEVfU0laRQMBCoUQBgYAQYCBBAtNAEEAQgA3A6iBBUEAIAA2AoiBBUEAIABBz4yijgZqNgKMgQVBACAAQfeUr694ajYChIEFQQAgAEGoiI2hAmo2AoCBBUEAQQA2AqCBBQulCAEHfwJAIABFDQBBAEEAKQOogQUgAK18NwOogQUCQEEAKAKggQUiASAAakEPSw0AQYCBBCECAkACQCAAQQNxIgMNACAAIQMMAQsDQEEAQQAoAqCBBSIEQQFqNgKggQUgBCACLQAAOgCQgQUgAkEBaiECIANBf2oiAw0ACyAAQXxxIQMLIABBBEkNAQNAQQBBACgCoIEFIgRBAWo2AqCBBSAEIAItAAA6AJCBBSACQQFqLQAAIQRBAEEAKAKggQUiBUEBajYCoIEFIAUgBDoAkIEFIAJBAmotAAAhBEEAQQAoAqCBBSIFQQFqNgKggQUgBSAEOgCQgQUgAkEDai0AACEEQQBBACgCoIEFIgVBAWo2AqCBBSAFIAQ6AJCBBSACQQRqIQIgA0F8aiIDDQAMAgsLIABB8IAEaiEGAkACQCABDQBBACgCjIEFIQNBACgCiIEFIQRBACgChIEFIQVBACgCgIEFIQFBgIEEIQIMAQtBgIEEIQICQCABQQ9LDQBBgIEEIQICQAJAQQAgAWtBA3EiAw0AIAEhBAwBCyABIQQDQEEAIAQiBUEBaiIENgKggQUgBUGQgQVqIAItAAA6AAAgAkEBaiECIANBf2oiAw0ACwsgAUEMSw0AQQAhBQNAIAIgBWoiAS0AACEHQQAgBCAFaiIDQQFqNgKggQUgA0GQgQVqIAc6AAAgAUEBai0AACEHQQAgA0ECajYCoIEFIANBkYEFaiAHOgAAIAFBAmotAAAhB0EAIANBA2o2AqCBBSADQZKBBWogBzoAACABQQNqLQAAIQFBACADQQRqNgKggQUgA0GTgQVqIAE6AAAgBCAFQQRqIgVqQRBHDQALIAIgBWohAgtBAEEAKAKQgQVB95Svr3hsQQAoAoCBBWpBDXdBsfPd8XlsIgE2AoCBBUEAQQAoApSBBUH3lK+veGxBACgChIEFakENd0Gx893xeWwiBTYChIEFQQBBACgCmIEFQfeUr694bEEAKAKIgQVqQQ13QbHz3fF5bCIENgKIgQVBAEEAKAKcgQVB95Svr3hsQQAoAoyBBWpBDXdBsfPd8XlsIgM2AoyBBQsgAEGAgQRqIQACQCACIAZLDQADQCACKAIAQfeUr694bCABakENd0Gx893xeWwhASACQQxqKAIAQfeUr694bCADakENd0Gx893xeWwhAyACQQhqKAIAQfeUr694bCAEakENd0Gx893xeWwhBCACQQRqKAIAQfeUr694bCAFakENd0Gx893xeWwhBSACQRBqIgIgBk0NAAsLQQAgAzYCjIEFQQAgBDYCiIEFQQAgBTYChIEFQQAgATYCgIEFQQAgACACazYCoIEFIAAgAkYNAEEAIQMDQCADQZCBBWogAiADai0AADoAACADQQFqIgNBACgCoIEFSQ0ACwsLlwMCAX4Gf0EAKQOogQUiAKchAQJAAkAgAEIQVA0AQQAoAoSBBUEHd0EAKAKAgQVBAXdqQQAoAoiBBUEMd2pBACgCjIEFQRJ3aiECDAELQQAoAoiBBUGxz9myAWohAgsgAiABaiEBQZCBBSEDQQAoAqCBBSIEQZCBBWohBQJAIARBBEkNAEGQgQUhAwNAIAMiAkEEaiEDIAIoAgBBvdzKlXxsIAFqQRF3Qa/W074CbCEBIAJBCGogBU0NAAsLAkAgAyAFRg0AIARBj4EFaiEGAkACQCAEIANrQQFxDQAgAyECDAELIANBAWohAiADLQAAQbHP2bIBbCABakELd0Gx893xeWwhAQsgBiADRg0AA0AgAkEBai0AAEGxz9myAWwgAi0AAEGxz9myAWwgAWpBC3dBsfPd8XlsakELd0Gx893xeWwhASACQQJqIgIgBUcNAAsLQQAgAUEPdiABc0H3lK+veGwiAUENdiABc0G93MqVfGwiAUEQdiABcyIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyrTcDgIEECwYAQYCBBQvmAwIBfgR/QQBCADcDqIEFQQAgATYCiIEFQQAgAUHPjKKOBmo2AoyBBUEAIAFB95Svr3hqNgKEgQVBACABQaiIjaECajYCgIEFQQBBADYCoIEFIAAQAkEAKQOogQUiAqchAQJAAkAgAkIQVA0AQQAoAoSBBUEHd0EAKAKAgQVBAXdqQQAoAoiBBUEMd2pBACgCjIEFQRJ3aiEADAELQQAoAoiBBUGxz9myAWohAAsgACABaiEBQZCBBSEDQQAoAqCBBSIEQZCBBWohBQJAIARBBEkNAEGQgQUhAwNAIAMiAEEEaiEDIAAoAgBBvdzKlXxsIAFqQRF3Qa/W074CbCEBIABBCGogBU0NAAsLAkAgAyAFRg0AIARBj4EFaiEGAkACQCAEIANrQQFxDQAgAyEADAELIANBAWohACADLQAAQbHP2bIBbCABakELd0Gx893xeWwhAQsgBiADRg0AA0AgAEEBai0AAEGxz9myAWwgAC0AAEGxz9myAWwgAWpBC3dBsfPd8XlsakELd0Gx893xeWwhASAAQQJqIgAgBUcNAAsLQQAgAUEPdiABc0H3lK+veGwiAUENdiABc0G93MqVfGwiAUEQdiABcyIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyrTcDgIEECwsMAQBBgIAECwQwAAAA";
var hash$8 = "b857aa2d";
var wasmJson$8 = {
	name: name$8,
	data: data$8,
	hash: hash$8
};

const mutex$6 = new Mutex();
let wasmCache$6 = null;
function validateSeed$3(seed) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
        return new Error("Seed must be a valid 32-bit long unsigned integer.");
    }
    return null;
}
/**
 * Calculates xxHash32 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param seed Number used to initialize the internal state of the algorithm (defaults to 0)
 * @returns Computed hash as a hexadecimal string
 */
function xxhash32(data, seed = 0) {
    if (validateSeed$3(seed)) {
        return Promise.reject(validateSeed$3(seed));
    }
    if (wasmCache$6 === null) {
        return lockedCreate(mutex$6, wasmJson$8, 4).then((wasm) => {
            wasmCache$6 = wasm;
            return wasmCache$6.calculate(data, seed);
        });
    }
    try {
        const hash = wasmCache$6.calculate(data, seed);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new xxHash32 hash instance
 * @param data Input data (string, Buffer or TypedArray)
 * @param seed Number used to initialize the internal state of the algorithm (defaults to 0)
 */
function createXXHash32(seed = 0) {
    if (validateSeed$3(seed)) {
        return Promise.reject(validateSeed$3(seed));
    }
    return WASMInterface(wasmJson$8, 4).then((wasm) => {
        wasm.init(seed);
        const obj = {
            init: () => {
                wasm.init(seed);
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 16,
            digestSize: 4,
        };
        return obj;
    });
}

var name$7 = "xxhash64";
var data$7 = "AGFzbQEAAAABDANgAAF/YAAAYAF/AAMHBgABAgEAAQUEAQECAgYPAn8BQYCABAt/AEGAgAQLB4IBCQZtZW1vcnkCAA9fX3N0YWNrX3BvaW50ZXIDAA5IYXNoX0dldEJ1ZmZlcgAACUhhc2hfSW5pdAABC0hhc2hfVXBkYXRlAAIKSGFzaF9GaW5hbAADDUhhc2hfR2V0U3RhdGUABA5IYXNoX0NhbGN1bGF0ZQAFClNUQVRFX1NJWkUDAQqGEQYGAEGAgQQLZAEBfkEAQgA3A8iBBUEAQQApA4CBBCIANwOQgQVBACAAQvnq0NDnyaHk4QB8NwOYgQVBACAAQs/W077Sx6vZQnw3A4iBBUEAIABC1uuC7ur9ifXgAHw3A4CBBUEAQQA2AsCBBQvQCQMFfwR+AX8CQCAARQ0AQQBBACkDyIEFIACtfDcDyIEFAkBBACgCwIEFIgEgAGpBH0sNAEGAgQQhAgJAAkAgAEEDcSIDDQAgACEDDAELA0BBAEEAKALAgQUiAUEBajYCwIEFIAEgAi0AADoAoIEFIAJBAWohAiADQX9qIgMNAAsgAEF8cSEDCyAAQQRJDQEDQEEAQQAoAsCBBSIBQQFqNgLAgQUgASACLQAAOgCggQUgAkEBai0AACEBQQBBACgCwIEFIgRBAWo2AsCBBSAEIAE6AKCBBSACQQJqLQAAIQFBAEEAKALAgQUiBEEBajYCwIEFIAQgAToAoIEFIAJBA2otAAAhAUEAQQAoAsCBBSIEQQFqNgLAgQUgBCABOgCggQUgAkEEaiECIANBfGoiAw0ADAILCyAAQeCABGohBQJAAkAgAQ0AQQApA5iBBSEGQQApA5CBBSEHQQApA4iBBSEIQQApA4CBBSEJQYCBBCECDAELQYCBBCECAkAgAUEfSw0AQYCBBCECAkACQEEAIAFrQQNxIgMNACABIQQMAQsgASEEA0AgBEGggQVqIAItAAA6AAAgBEEBaiEEIAJBAWohAiADQX9qIgMNAAsLIAFBHEsNAAJAQRwgBGsiA0EEcQ0AIARBoIEFaiACLQAAOgAAIARBoYEFaiACLQABOgAAIARBooEFaiACLQACOgAAIARBo4EFaiACLQADOgAAIAJBBGohAiADQQRJDQEgBEEEaiEEC0EAIQoDQCAEIApqIgNBoIEFaiACIApqIgEtAAA6AAAgA0GhgQVqIAFBAWotAAA6AAAgA0GigQVqIAFBAmotAAA6AAAgA0GjgQVqIAFBA2otAAA6AAAgA0GkgQVqIAFBBGotAAA6AAAgA0GlgQVqIAFBBWotAAA6AAAgA0GmgQVqIAFBBmotAAA6AAAgA0GngQVqIAFBB2otAAA6AAAgBCAKQQhqIgpqQSBHDQALIAIgCmohAgtBAEEAKQOggQVCz9bTvtLHq9lCfkEAKQOAgQV8Qh+JQoeVr6+Ytt6bnn9+Igk3A4CBBUEAQQApA6iBBULP1tO+0ser2UJ+QQApA4iBBXxCH4lCh5Wvr5i23puef34iCDcDiIEFQQBBACkDsIEFQs/W077Sx6vZQn5BACkDkIEFfEIfiUKHla+vmLbem55/fiIHNwOQgQVBAEEAKQO4gQVCz9bTvtLHq9lCfkEAKQOYgQV8Qh+JQoeVr6+Ytt6bnn9+IgY3A5iBBQsgAEGAgQRqIQMCQCACIAVLDQADQCACKQMAQs/W077Sx6vZQn4gCXxCH4lCh5Wvr5i23puef34hCSACQRhqKQMAQs/W077Sx6vZQn4gBnxCH4lCh5Wvr5i23puef34hBiACQRBqKQMAQs/W077Sx6vZQn4gB3xCH4lCh5Wvr5i23puef34hByACQQhqKQMAQs/W077Sx6vZQn4gCHxCH4lCh5Wvr5i23puef34hCCACQSBqIgIgBU0NAAsLQQAgBjcDmIEFQQAgBzcDkIEFQQAgCDcDiIEFQQAgCTcDgIEFQQAgAyACazYCwIEFIAMgAkYNAEEAIQMDQCADQaCBBWogAiADai0AADoAACADQQFqIgNBACgCwIEFSQ0ACwsLuwYCBX4FfwJAAkBBACkDyIEFIgBCIFQNAEEAKQOIgQUiAUIHiUEAKQOAgQUiAkIBiXxBACkDkIEFIgNCDIl8QQApA5iBBSIEQhKJfCACQs/W077Sx6vZQn5CH4lCh5Wvr5i23puef36FQoeVr6+Ytt6bnn9+QuPcypX8zvL1hX98IAFCz9bTvtLHq9lCfkIfiUKHla+vmLbem55/foVCh5Wvr5i23puef35C49zKlfzO8vWFf3wgA0LP1tO+0ser2UJ+Qh+JQoeVr6+Ytt6bnn9+hUKHla+vmLbem55/fkLj3MqV/M7y9YV/fCAEQs/W077Sx6vZQn5CH4lCh5Wvr5i23puef36FQoeVr6+Ytt6bnn9+QuPcypX8zvL1hX98IQEMAQtBACkDkIEFQsXP2bLx5brqJ3whAQsgASAAfCEAQaCBBSEFQQAoAsCBBSIGQaCBBWohBwJAIAZBCEkNAEGggQUhBQNAIAUiCEEIaiEFIAgpAwBCz9bTvtLHq9lCfkIfiUKHla+vmLbem55/fiAAhUIbiUKHla+vmLbem55/fkLj3MqV/M7y9YV/fCEAIAhBEGogB00NAAsLAkACQCAFQQRqIgkgB00NACAFIQkMAQsgBTUCAEKHla+vmLbem55/fiAAhUIXiULP1tO+0ser2UJ+Qvnz3fGZ9pmrFnwhAAsCQCAJIAdGDQAgBkGfgQVqIQUCQAJAIAYgCWtBAXENACAJIQgMAQsgCUEBaiEIIAkxAABCxc/ZsvHluuonfiAAhUILiUKHla+vmLbem55/fiEACyAFIAlGDQADQCAIQQFqMQAAQsXP2bLx5brqJ34gCDEAAELFz9my8eW66id+IACFQguJQoeVr6+Ytt6bnn9+hUILiUKHla+vmLbem55/fiEAIAhBAmoiCCAHRw0ACwtBACAAQiGIIACFQs/W077Sx6vZQn4iAEIdiCAAhUL5893xmfaZqxZ+IgBCIIggAIUiAUI4hiABQoD+A4NCKIaEIAFCgID8B4NCGIYgAUKAgID4D4NCCIaEhCAAQgiIQoCAgPgPgyAAQhiIQoCA/AeDhCAAQiiIQoD+A4MgAEI4iISEhDcDgIEECwYAQYCBBQsCAAsLDAEAQYCABAsEUAAAAA==";
var hash$7 = "09c6be90";
var wasmJson$7 = {
	name: name$7,
	data: data$7,
	hash: hash$7
};

const mutex$5 = new Mutex();
let wasmCache$5 = null;
const seedBuffer$2 = new Uint8Array(8);
function validateSeed$2(seed) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
        return new Error("Seed must be given as two valid 32-bit long unsigned integers (lo + high).");
    }
    return null;
}
function writeSeed$2(arr, low, high) {
    // write in little-endian format
    const buffer = new DataView(arr);
    buffer.setUint32(0, low, true);
    buffer.setUint32(4, high, true);
}
/**
 * Calculates xxHash64 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param seedLow Lower 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 * @param seedHigh Higher 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 * @returns Computed hash as a hexadecimal string
 */
function xxhash64(data, seedLow = 0, seedHigh = 0) {
    if (validateSeed$2(seedLow)) {
        return Promise.reject(validateSeed$2(seedLow));
    }
    if (validateSeed$2(seedHigh)) {
        return Promise.reject(validateSeed$2(seedHigh));
    }
    if (wasmCache$5 === null) {
        return lockedCreate(mutex$5, wasmJson$7, 8).then((wasm) => {
            wasmCache$5 = wasm;
            writeSeed$2(seedBuffer$2.buffer, seedLow, seedHigh);
            wasmCache$5.writeMemory(seedBuffer$2);
            return wasmCache$5.calculate(data);
        });
    }
    try {
        writeSeed$2(seedBuffer$2.buffer, seedLow, seedHigh);
        wasmCache$5.writeMemory(seedBuffer$2);
        const hash = wasmCache$5.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new xxHash64 hash instance
 * @param seedLow Lower 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 * @param seedHigh Higher 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 */
function createXXHash64(seedLow = 0, seedHigh = 0) {
    if (validateSeed$2(seedLow)) {
        return Promise.reject(validateSeed$2(seedLow));
    }
    if (validateSeed$2(seedHigh)) {
        return Promise.reject(validateSeed$2(seedHigh));
    }
    return WASMInterface(wasmJson$7, 8).then((wasm) => {
        const instanceBuffer = new Uint8Array(8);
        writeSeed$2(instanceBuffer.buffer, seedLow, seedHigh);
        wasm.writeMemory(instanceBuffer);
        wasm.init();
        const obj = {
            init: () => {
                wasm.writeMemory(instanceBuffer);
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 32,
            digestSize: 8,
        };
        return obj;
    });
}

var name$6 = "xxhash3";
var data$6 = "AGFzbQEAAAABNAhgAAF/YAR/f39/AGAHf39/f39/fwBgBH9+fn4BfmAEf39/fgF+YAN/f34BfmAAAGABfwADDg0AAQIDBAUFBQYHBgAGBQQBAQICBg8CfwFBgIAEC38AQcCBBAsHggEJBm1lbW9yeQIAD19fc3RhY2tfcG9pbnRlcgMADkhhc2hfR2V0QnVmZmVyAAAJSGFzaF9Jbml0AAgLSGFzaF9VcGRhdGUACQpIYXNoX0ZpbmFsAAoNSGFzaF9HZXRTdGF0ZQALDkhhc2hfQ2FsY3VsYXRlAAwKU1RBVEVfU0laRQMBCo9CDQYAQYCCBAvzAwQBfwh+AX8IfgJAIANFDQAgA0EDdCEEIAApAzAhBSAAKQM4IQYgACkDICEHIAApAyghCCAAKQMQIQkgACkDGCEKIAApAwAhCyAAKQMIIQxBACENA0AgBiABQTBqKQMAIg58IAIgDWoiA0E4aikDACABQThqKQMAIg+FIgZCIIggBkL/////D4N+fCEGIAggAUEgaikDACIQfCADQShqKQMAIAFBKGopAwAiEYUiCEIgiCAIQv////8Pg358IQggCiABQRBqKQMAIhJ8IANBGGopAwAgAUEYaikDACIThSIKQiCIIApC/////w+DfnwhCiAMIAEpAwAiFHwgA0EIaikDACABQQhqKQMAIhWFIgxCIIggDEL/////D4N+fCEMIANBMGopAwAgDoUiDkIgiCAOQv////8Pg34gBXwgD3whBSADQSBqKQMAIBCFIg5CIIggDkL/////D4N+IAd8IBF8IQcgA0EQaikDACAShSIOQiCIIA5C/////w+DfiAJfCATfCEJIAMpAwAgFIUiDkIgiCAOQv////8Pg34gC3wgFXwhCyABQcAAaiEBIAQgDUEIaiINRw0ACyAAIAo3AxggACALNwMAIAAgDDcDCCAAIAg3AyggACAJNwMQIAAgBjcDOCAAIAc3AyAgACAFNwMwCwveAgIBfwF+AkAgBCACIAEoAgAiB2siAkkNACAAIAMgBSAHQQN0aiACEAEgACAFIAZqIgcpAwAgACkDACIIQi+IhSAIhUKx893xCX43AwAgACAHKQMIIAApAwgiCEIviIUgCIVCsfPd8Ql+NwMIIAAgBykDECAAKQMQIghCL4iFIAiFQrHz3fEJfjcDECAAIAcpAxggACkDGCIIQi+IhSAIhUKx893xCX43AxggACAHKQMgIAApAyAiCEIviIUgCIVCsfPd8Ql+NwMgIAAgBykDKCAAKQMoIghCL4iFIAiFQrHz3fEJfjcDKCAAIAcpAzAgACkDMCIIQi+IhSAIhUKx893xCX43AzAgACAHKQM4IAApAzgiCEIviIUgCIVCsfPd8Ql+NwM4IAAgAyACQQZ0aiAFIAQgAmsiBxABIAEgBzYCAA8LIAAgAyAFIAdBA3RqIAQQASABIAcgBGo2AgALewEBfyACIAGFIAOnIgRB/4H8B3FBCHggBEEYeEH/gfwHcXKtQiCGIAOFfUEANQKAhAVCIIYgAEH8gwVqNQIAhIUiA0IxiSADQhiJhSADhUKlvuP00YyH2Z9/fiIDQiOIIACtfCADhUKlvuP00YyH2Z9/fiIDQhyIIAOFC2QAIAMgAiABc618IgNCIYhBAC0AgIQFQRB0IABBCHRyIABBAXYtAICEBUEYdHIgAEH/gwVqLQAAcq2FIAOFQs/W077Sx6vZQn4iA0IdiCADhUL5893xmfaZqxZ+IgNCIIggA4ULhwMBBX4CQCAAQQlJDQBBACkDgIQFIAEpAyAgASkDGIUgAnyFIgNCOIYgA0KA/gODQiiGhCADQoCA/AeDQhiGIANCgICA+A+DQgiGhIQgA0IIiEKAgID4D4MgA0IYiEKAgPwHg4QgA0IoiEKA/gODIANCOIiEhIQgAK18IABB+IMFaikDACABKQMwIAEpAyiFIAJ9hSICfCACQv////8PgyIEIANCIIgiBX4iBiACQiCIIgIgA0L/////D4MiB358IgNCIIggAiAFfnxCgICAgBBCACADIAZUG3wgA0IghiIDIAQgB358IgIgA1StfCAChXwiA0IliCADhUL5893xmfKZqxZ+IgNCIIggA4UPCwJAIABBBEkNACAAIAFBCGopAwAgAUEQaikDACACEAMPCwJAIABFDQAgACABKAIAIAFBBGooAgAgAhAEDwsgASkDOCABKQNAhSAChSIDQiGIIAOFQs/W077Sx6vZQn4iA0IdiCADhUL5893xmfaZqxZ+IgNCIIggA4ULzggBB34gAK1Ch5Wvr5i23puef34hAwJAIABBIUkNAAJAIABBwQBJDQACQCAAQeEASQ0AIAEpA2ggAn1BACkDuIQFhSIEQv////8PgyIFIAEpA2AgAnxBACkDsIQFhSIGQiCIIgd+IgggBEIgiCIJIAZC/////w+DIgZ+fCIEQiCIIAkgB358QoCAgIAQQgAgBCAIVBt8IARCIIYiBCAFIAZ+fCIFIARUrXwgBYUgA3wgASkDeCACfSAAQciDBWopAwCFIgNC/////w+DIgQgASkDcCACfCAAQcCDBWopAwCFIgVCIIgiBn4iByADQiCIIgggBUL/////D4MiBX58IgNCIIggCCAGfnxCgICAgBBCACADIAdUG3wgA0IghiIDIAQgBX58IgQgA1StfCAEhXwhAwsgASkDSCACfUEAKQOohAWFIgRC/////w+DIgUgASkDQCACfEEAKQOghAWFIgZCIIgiB34iCCAEQiCIIgkgBkL/////D4MiBn58IgRCIIggCSAHfnxCgICAgBBCACAEIAhUG3wgBEIghiIEIAUgBn58IgUgBFStfCAFhSADfCABKQNYIAJ9IABB2IMFaikDAIUiA0L/////D4MiBCABKQNQIAJ8IABB0IMFaikDAIUiBUIgiCIGfiIHIANCIIgiCCAFQv////8PgyIFfnwiA0IgiCAIIAZ+fEKAgICAEEIAIAMgB1QbfCADQiCGIgMgBCAFfnwiBCADVK18IASFfCEDCyABKQMoIAJ9QQApA5iEBYUiBEL/////D4MiBSABKQMgIAJ8QQApA5CEBYUiBkIgiCIHfiIIIARCIIgiCSAGQv////8PgyIGfnwiBEIgiCAJIAd+fEKAgICAEEIAIAQgCFQbfCAEQiCGIgQgBSAGfnwiBSAEVK18IAWFIAN8IAEpAzggAn0gAEHogwVqKQMAhSIDQv////8PgyIEIAEpAzAgAnwgAEHggwVqKQMAhSIFQiCIIgZ+IgcgA0IgiCIIIAVC/////w+DIgV+fCIDQiCIIAggBn58QoCAgIAQQgAgAyAHVBt8IANCIIYiAyAEIAV+fCIEIANUrXwgBIV8IQMLIAEpAwggAn1BACkDiIQFhSIEQv////8PgyIFIAEpAwAgAnxBACkDgIQFhSIGQiCIIgd+IgggBEIgiCIJIAZC/////w+DIgZ+fCIEQiCIIAkgB358QoCAgIAQQgAgBCAIVBt8IARCIIYiBCAFIAZ+fCIFIARUrXwgBYUgA3wgASkDGCACfSAAQfiDBWopAwCFIgNC/////w+DIgQgASkDECACfCAAQfCDBWopAwCFIgJCIIgiBX4iBiADQiCIIgMgAkL/////D4MiB358IgJCIIggAyAFfnxCgICAgBBCACACIAZUG3wgAkIghiICIAQgB358IgMgAlStfCADhXwiAkIliCAChUL5893xmfKZqxZ+IgJCIIggAoUL5QoEAX8GfgJ/AX5BACEDIAEpA3ggAn1BACkD+IQFhSIEQv////8PgyIFIAEpA3AgAnxBACkD8IQFhSIGQiCIIgd+IgggBEIgiCIJIAZC/////w+DIgZ+fCIEQiCIIAkgB358QoCAgIAQQgAgBCAIVBt8IARCIIYiBCAFIAZ+fCIFIARUrXwgBYUgASkDaCACfUEAKQPohAWFIgRC/////w+DIgUgASkDYCACfEEAKQPghAWFIgZCIIgiB34iCCAEQiCIIgkgBkL/////D4MiBn58IgRCIIggCSAHfnxCgICAgBBCACAEIAhUG3wgBEIghiIEIAUgBn58IgUgBFStfCAFhSABKQNYIAJ9QQApA9iEBYUiBEL/////D4MiBSABKQNQIAJ8QQApA9CEBYUiBkIgiCIHfiIIIARCIIgiCSAGQv////8PgyIGfnwiBEIgiCAJIAd+fEKAgICAEEIAIAQgCFQbfCAEQiCGIgQgBSAGfnwiBSAEVK18IAWFIAEpA0ggAn1BACkDyIQFhSIEQv////8PgyIFIAEpA0AgAnxBACkDwIQFhSIGQiCIIgd+IgggBEIgiCIJIAZC/////w+DIgZ+fCIEQiCIIAkgB358QoCAgIAQQgAgBCAIVBt8IARCIIYiBCAFIAZ+fCIFIARUrXwgBYUgASkDOCACfUEAKQO4hAWFIgRC/////w+DIgUgASkDMCACfEEAKQOwhAWFIgZCIIgiB34iCCAEQiCIIgkgBkL/////D4MiBn58IgRCIIggCSAHfnxCgICAgBBCACAEIAhUG3wgBEIghiIEIAUgBn58IgUgBFStfCAFhSABKQMoIAJ9QQApA6iEBYUiBEL/////D4MiBSABKQMgIAJ8QQApA6CEBYUiBkIgiCIHfiIIIARCIIgiCSAGQv////8PgyIGfnwiBEIgiCAJIAd+fEKAgICAEEIAIAQgCFQbfCAEQiCGIgQgBSAGfnwiBSAEVK18IAWFIAEpAxggAn1BACkDmIQFhSIEQv////8PgyIFIAEpAxAgAnxBACkDkIQFhSIGQiCIIgd+IgggBEIgiCIJIAZC/////w+DIgZ+fCIEQiCIIAkgB358QoCAgIAQQgAgBCAIVBt8IARCIIYiBCAFIAZ+fCIFIARUrXwgBYUgASkDCCACfUEAKQOIhAWFIgRC/////w+DIgUgASkDACACfEEAKQOAhAWFIgZCIIgiB34iCCAEQiCIIgkgBkL/////D4MiBn58IgRCIIggCSAHfnxCgICAgBBCACAEIAhUG3wgBEIghiIEIAUgBn58IgUgBFStfCAFhSAArUKHla+vmLbem55/fnx8fHx8fHx8IgRCJYggBIVC+fPd8ZnymasWfiIEQiCIIASFIQUCQCAAQZABSQ0AIABBcHFBgH9qIQoDQCABIANqIgtBC2opAwAgAn0gA0GIhQVqKQMAhSIEQv////8PgyIGIAtBA2opAwAgAnwgA0GAhQVqKQMAhSIHQiCIIgh+IgkgBEIgiCIMIAdC/////w+DIgd+fCIEQiCIIAwgCH58QoCAgIAQQgAgBCAJVBt8IARCIIYiBCAGIAd+fCIGIARUrXwgBoUgBXwhBSAKIANBEGoiA0cNAAsLIAEpA38gAn0gAEH4gwVqKQMAhSIEQv////8PgyIGIAEpA3cgAnwgAEHwgwVqKQMAhSICQiCIIgd+IgggBEIgiCIEIAJC/////w+DIgl+fCICQiCIIAQgB358QoCAgIAQQgAgAiAIVBt8IAJCIIYiAiAGIAl+fCIEIAJUrXwgBIUgBXwiAkIliCAChUL5893xmfKZqxZ+IgJCIIggAoUL4QUCAX4BfwJAAkBBACkDgIIEIgBQRQ0AQYCABCEBQgAhAAwBCwJAIABBACkDoIYFUg0AQQAhAQwBC0EAIQFBAEKvr+/XvPeSoP4AIAB9NwP4gwVBACAAQsWW6/nY0oWCKHw3A/CDBUEAQo/x442tj/SYTiAAfTcD6IMFQQAgAEKrrPjF1e/R0Hx8NwPggwVBAELTrdSykoW1tJ5/IAB9NwPYgwVBACAAQpea9I71lrztyQB8NwPQgwVBAELFg4L9r//EsWsgAH03A8iDBUEAIABC6ouzncjm9PVDfDcDwIMFQQBCyL/6y5yb3rnkACAAfTcDuIMFQQAgAEKKo4Hf1JntrDF8NwOwgwVBAEL5ue+9/PjCpx0gAH03A6iDBUEAIABCqPXb+7Ocp5o/fDcDoIMFQQBCuLK8t5TVt9ZYIAB9NwOYgwVBACAAQvHIobqptMP8zgB8NwOQgwVBAEKIoZfbuOOUl6N/IAB9NwOIgwVBACAAQrzQyNqb8rCAS3w3A4CDBUEAQuDrwLSe0I6TzAAgAH03A/iCBUEAIABCuJGYovf+kJKOf3w3A/CCBUEAQoK1we7H+b+5ISAAfTcD6IIFQQAgAELL85n3xJnw8vgAfDcD4IIFQQBC8oCRpfr27LMfIAB9NwPYggVBACAAQt6pt8u+kOTLW3w3A9CCBUEAQvyChOTyvsjWHCAAfTcDyIIFQQAgAEK4/bPLs4Tppb5/fDcDwIIFC0EAQgA3A5CGBUEAQgA3A4iGBUEAQgA3A4CGBUEAQr3cypUMNwOAggVBAEKHla+vmLbem55/NwOIggVBAELP1tO+0ser2UI3A5CCBUEAQvnz3fGZ9pmrFjcDmIIFQQBC49zKlfzO8vWFfzcDoIIFQQBC95Svrwg3A6iCBUEAQsXP2bLx5brqJzcDsIIFQQBCsfPd8Qk3A7iCBUEAIAA3A6CGBUEAIAE2ArCGBUEAQpCAgICAEDcDmIYFC9YKAQh/QQBBACkDkIYFIACtfDcDkIYFAkACQAJAQQAoAoCGBSIBIABqIgJBgAJLDQAgAUGAhAVqIQNBgIIEIQQCQCAAQQhPDQAgACEFDAILQYCCBCEEAkACQCAAQXhqIgFBOHFBOEcNACAAIQUMAQtBgIIEIQQgAUEDdkEBakEHcSIGIQUDQCADIAQpAwA3AwAgA0EIaiEDIARBCGohBCAFQX9qIgUNAAsgACAGQQN0ayEFIAFBOEkNAgsDQCADIAQpAwA3AwAgA0EIaiAEQQhqKQMANwMAIANBEGogBEEQaikDADcDACADQRhqIARBGGopAwA3AwAgA0EgaiAEQSBqKQMANwMAIANBKGogBEEoaikDADcDACADQTBqIARBMGopAwA3AwAgA0E4aiAEQThqKQMANwMAIANBwABqIQMgBEHAAGohBCAFQUBqIgVBB0sNAAwCCwtBgIIEIQQgAEGAggRqIQZBACgCsIYFIgNBwIIFIAMbIQUCQCABRQ0AIAFBgIQFaiEDQYCCBCEEAkACQEGAAiABayIHQQhPDQAgByECDAELQYCCBCEEAkACQEH4ASABayIAQThxQThHDQAgByECDAELQQAgAEEDdkEBakEHcSIIayECQYCCBCEEA0AgAyAEKQMANwMAIANBCGohAyAEQQhqIQQgAkEBaiICDQALQYACIAEgCEEDdGprIQIgAEE4SQ0BCwNAIAMgBCkDADcDACADQQhqIARBCGopAwA3AwAgA0EQaiAEQRBqKQMANwMAIANBGGogBEEYaikDADcDACADQSBqIARBIGopAwA3AwAgA0EoaiAEQShqKQMANwMAIANBMGogBEEwaikDADcDACADQThqIARBOGopAwA3AwAgA0HAAGohAyAEQcAAaiEEIAJBQGoiAkEHSw0ACwsCQCACRQ0AAkACQCACQQdxIgANACACIQAMAQsDQCADIAQtAAA6AAAgA0EBaiEDIARBAWohBCAAQX9qIgANAAsgAkF4cSEACyACQQhJDQADQCADIAQpAAA3AAAgA0EIaiEDIARBCGohBCAAQXhqIgANAAsLQYCCBUGIhgVBACgCmIYFQYCEBUEEIAVBACgCnIYFEAJBAEEANgKAhgUgB0GAggRqIQQLAkAgBEGAAmogBk8NACAGQYB+aiECA0BBgIIFQYiGBUEAKAKYhgUgBCIDQQQgBUEAKAKchgUQAiADQYACaiIEIAJJDQALQQAgAykDwAE3A8CFBUEAIAMpA8gBNwPIhQVBACADKQPQATcD0IUFQQAgAykD2AE3A9iFBUEAIAMpA+ABNwPghQVBACADKQPoATcD6IUFQQAgAykD8AE3A/CFBUEAIAMpA/gBNwP4hQULQYCEBSEDAkACQCAGIARrIgJBCE8NACACIQUMAQtBgIQFIQMgAiEFA0AgAyAEKQMANwMAIANBCGohAyAEQQhqIQQgBUF4aiIFQQdLDQALCyAFRQ0BIAMgBC0AADoAACAFQQFGDQEgAyAELQABOgABIAVBAkYNASADIAQtAAI6AAIgBUEDRg0BIAMgBC0AAzoAAyAFQQRGDQEgAyAELQAEOgAEIAVBBUYNASADIAQtAAU6AAUgBUEGRg0BIAMgBC0ABjoABgwBCyAFRQ0AAkACQCAFQQdxIgINACAFIQIMAQsDQCADIAQtAAA6AAAgA0EBaiEDIARBAWohBCACQX9qIgINAAsgBUF4cSECCwJAIAVBCEkNAANAIAMgBCkAADcAACADQQhqIQMgBEEIaiEEIAJBeGoiAg0ACwtBACgCgIYFIABqIQILQQAgAjYCgIYFC8oSBQR/CH4BfxB+BX8jACIAIQEgAEGAAWtBQHEiAiQAQQAoArCGBSIAQcCCBSAAGyEDAkACQAJAAkACQAJAQQApA5CGBSIEQvEBVA0AIAJBACkDgIIFNwMAIAJBACkDiIIFIgU3AwggAkEAKQOQggUiBjcDECACQQApA5iCBSIHNwMYIAJBACkDoIIFIgg3AyAgAkEAKQOoggUiCTcDKCACQQApA7CCBSIKNwMwIAJBACkDuIIFIgs3AzgCQEEAKAKAhgUiDEHAAEkNACACQQAoAoiGBTYCQCACIAJBwABqQQAoApiGBUGAhAUgDEF/akEGdiADQQAoApyGBSIAEAIgAyAAaiIAQXlqKQMAIQ0gACkDCSEOIAApAxkhDyAAKQMpIQUgDEHAgwVqKQMAIQogACkDASELIAxByIMFaikDACEQIAxB0IMFaikDACEGIAApAxEhByAMQdiDBWopAwAhESAMQeCDBWopAwAhCCAAKQMhIQkgDEHogwVqKQMAIRIgAikDACETIAIpAxAhFCACKQMgIRUgAikDMCEWIAIpAwghFyACKQMYIRggAikDKCEZIAIgAikDOCAMQfCDBWopAwAiGnwgACkDMSAMQfiDBWopAwAiG4UiHEIgiCAcQv////8Pg358NwM4IBkgCHwgCSAShSIJQiCIIAlC/////w+DfnwhCSAYIAZ8IAcgEYUiB0IgiCAHQv////8Pg358IQcgFyAKfCALIBCFIgtCIIggC0L/////D4N+fCELIBsgFiAFIBqFIgVCIIggBUL/////D4N+fHwhBSASIBUgDyAIhSIIQiCIIAhC/////w+Dfnx8IQggESAUIA4gBoUiBkIgiCAGQv////8Pg358fCEGIBAgEyANIAqFIgpCIIggCkL/////D4N+fHwhCgwFCyAMQcCFBWohHUHAACAMayEeIAJBwABqIQACQCAMQThNDQAgHiEfDAMLAkBBOCAMa0EDdiIAQQdGDQBBACAAQQFqQQdxIiBrIR8gAkHAAGohAANAIAAgHSkDADcDACAAQQhqIQAgHUEIaiEdIB9BAWoiHw0AC0HAACAMICBBA3RqayEfDAILIAJBwABqIQAgHiEfA0AgACAdKQMANwMAIABBCGogHUEIaikDADcDACAAQRBqIB1BEGopAwA3AwAgAEEYaiAdQRhqKQMANwMAIABBIGogHUEgaikDADcDACAAQShqIB1BKGopAwA3AwAgAEEwaiAdQTBqKQMANwMAIABBOGogHUE4aikDADcDACAAQcAAaiEAIB1BwABqIR0gH0FAaiIfQQdLDQAMAgsLIASnIQACQEEAKQOghgUiBVANAAJAIARCEFYNACAAQYCABCAFEAUhBAwGCwJAIARCgAFWDQAgAEGAgAQgBRAGIQQMBgsgAEGAgAQgBRAHIQQMBQsCQCAEQhBWDQAgACADQgAQBSEEDAULAkAgBEKAAVYNACAAIANCABAGIQQMBQsgACADQgAQByEEDAQLIB9FDQELIB9Bf2ohIQJAIB9BB3EiIEUNAANAIAAgHS0AADoAACAAQQFqIQAgHUEBaiEdICBBf2oiIA0ACyAfQXhxIR8LICFBB0kNAANAIAAgHSkAADcAACAAQQhqIQAgHUEIaiEdIB9BeGoiHw0ACwsgAkHAAGogHmohHUGAhAUhAAJAIAxBCEkNACAMQXhqIiBBA3ZBAWohH0GAhAUhAANAIB0gACkDADcDACAdQQhqIR0gAEEIaiEAIB9Bf2oiHw0ACyAMICBBeHFrQXhqIQwLAkAgDEUNAAJAAkAgDEEHcSIfDQAgDCEfDAELA0AgHSAALQAAOgAAIB1BAWohHSAAQQFqIQAgH0F/aiIfDQALIAxBeHEhHwsgDEEISQ0AA0AgHSAAKQAANwAAIB1BCGohHSAAQQhqIQAgH0F4aiIfDQALCyADQQAoApyGBWoiAEF5aikDACETIAApAwkhFCAAKQMZIRUgACkDKSEWIAApAwEhFyAAKQMRIRggACkDISEZIAIpAwAhGiACKQNAIRAgAikDSCERIAIpA1AhEiACKQNYIQ0gAikDYCEOIAIpA2ghDyACIAsgAikDcCIbfCAAKQMxIAIpA3giHIUiC0IgiCALQv////8Pg358NwM4IAkgDnwgGSAPhSIJQiCIIAlC/////w+DfnwhCSAHIBJ8IBggDYUiB0IgiCAHQv////8Pg358IQcgBSAQfCAXIBGFIgVCIIggBUL/////D4N+fCELIBwgFiAbhSIFQiCIIAVC/////w+DfiAKfHwhBSAPIBUgDoUiCkIgiCAKQv////8Pg34gCHx8IQggDSAUIBKFIgpCIIggCkL/////D4N+IAZ8fCEGIBEgGiATIBCFIgpCIIggCkL/////D4N+fHwhCgsgAykDQyACKQM4hSIQQv////8PgyIRIAMpAzsgBYUiBUIgiCISfiINIBBCIIgiECAFQv////8PgyIOfnwiBUIgiCAQIBJ+fEKAgICAEEIAIAUgDVQbfCAFQiCGIgUgESAOfnwiECAFVK18IBCFIAMpAzMgCYUiBUL/////D4MiCSADKQMrIAiFIghCIIgiEH4iESAFQiCIIhIgCEL/////D4MiCH58IgVCIIggEiAQfnxCgICAgBBCACAFIBFUG3wgBUIghiIFIAkgCH58IgkgBVStfCAJhSADKQMjIAeFIgVC/////w+DIgkgAykDGyAGhSIHQiCIIgh+IgYgBUIgiCIQIAdC/////w+DIgd+fCIFQiCIIBAgCH58QoCAgIAQQgAgBSAGVBt8IAVCIIYiBSAJIAd+fCIJIAVUrXwgCYUgAykDEyALhSIFQv////8PgyIJIAMpAwsgCoUiB0IgiCILfiIIIAVCIIgiBiAHQv////8PgyIHfnwiBUIgiCAGIAt+fEKAgICAEEIAIAUgCFQbfCAFQiCGIgUgCSAHfnwiCSAFVK18IAmFIARCh5Wvr5i23puef358fHx8IgRCJYggBIVC+fPd8ZnymasWfiIEQiCIIASFIQQLQQAgBEI4hiAEQoD+A4NCKIaEIARCgID8B4NCGIYgBEKAgID4D4NCCIaEhCAEQgiIQoCAgPgPgyAEQhiIQoCA/AeDhCAEQiiIQoD+A4MgBEI4iISEhDcDgIIEIAEkAAsGAEGAggULAgALC80BAQBBgIAEC8QBuP5sOSOkS758AYEs9yGtHN7UbemDkJfbckCkpLezZx/LeeZOzMDleIJa0H3M/3IhuAhGdPdDJI7gNZDmgTomTDwoUruRwwDLiNBlixtTLqNxZEiXog35TjgZ70ap3qzYqPp2P+OcND/53LvHxwtPHYpR4EvNtFkxyJ9+ydl4c2TqxayDNNPrw8WBoP/6E2PrFw3dUbfw2knTFlUmKdRonisWvlh9R6H8j/i40XrQMc5FyzqPlRYEKK/X+8q7S0B+QAIAAA==";
var hash$6 = "8d0b08d4";
var wasmJson$6 = {
	name: name$6,
	data: data$6,
	hash: hash$6
};

const mutex$4 = new Mutex();
let wasmCache$4 = null;
const seedBuffer$1 = new Uint8Array(8);
function validateSeed$1(seed) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
        return new Error("Seed must be given as two valid 32-bit long unsigned integers (lo + high).");
    }
    return null;
}
function writeSeed$1(arr, low, high) {
    // write in little-endian format
    const buffer = new DataView(arr);
    buffer.setUint32(0, low, true);
    buffer.setUint32(4, high, true);
}
/**
 * Calculates xxHash3 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param seedLow Lower 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 * @param seedHigh Higher 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 * @returns Computed hash as a hexadecimal string
 */
function xxhash3(data, seedLow = 0, seedHigh = 0) {
    if (validateSeed$1(seedLow)) {
        return Promise.reject(validateSeed$1(seedLow));
    }
    if (validateSeed$1(seedHigh)) {
        return Promise.reject(validateSeed$1(seedHigh));
    }
    if (wasmCache$4 === null) {
        return lockedCreate(mutex$4, wasmJson$6, 8).then((wasm) => {
            wasmCache$4 = wasm;
            writeSeed$1(seedBuffer$1.buffer, seedLow, seedHigh);
            wasmCache$4.writeMemory(seedBuffer$1);
            return wasmCache$4.calculate(data);
        });
    }
    try {
        writeSeed$1(seedBuffer$1.buffer, seedLow, seedHigh);
        wasmCache$4.writeMemory(seedBuffer$1);
        const hash = wasmCache$4.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new xxHash3 hash instance
 * @param seedLow Lower 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 * @param seedHigh Higher 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 */
function createXXHash3(seedLow = 0, seedHigh = 0) {
    if (validateSeed$1(seedLow)) {
        return Promise.reject(validateSeed$1(seedLow));
    }
    if (validateSeed$1(seedHigh)) {
        return Promise.reject(validateSeed$1(seedHigh));
    }
    return WASMInterface(wasmJson$6, 8).then((wasm) => {
        const instanceBuffer = new Uint8Array(8);
        writeSeed$1(instanceBuffer.buffer, seedLow, seedHigh);
        wasm.writeMemory(instanceBuffer);
        wasm.init();
        const obj = {
            init: () => {
                wasm.writeMemory(instanceBuffer);
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 512,
            digestSize: 8,
        };
        return obj;
    });
}

var name$5 = "xxhash128";
var data$5 = "AGFzbQEAAAABKwdgAAF/YAR/f39/AGAHf39/f39/fwBgA39/fgF+YAR/f39+AGAAAGABfwADDQwAAQIDBAQEBQYFAAUFBAEBAgIGDwJ/AUGAgAQLfwBBwIEECweCAQkGbWVtb3J5AgAPX19zdGFja19wb2ludGVyAwAOSGFzaF9HZXRCdWZmZXIAAAlIYXNoX0luaXQABwtIYXNoX1VwZGF0ZQAICkhhc2hfRmluYWwACQ1IYXNoX0dldFN0YXRlAAoOSGFzaF9DYWxjdWxhdGUACwpTVEFURV9TSVpFAwEKn00MBgBBgIIEC/MDBAF/CH4Bfwh+AkAgA0UNACADQQN0IQQgACkDMCEFIAApAzghBiAAKQMgIQcgACkDKCEIIAApAxAhCSAAKQMYIQogACkDACELIAApAwghDEEAIQ0DQCAGIAFBMGopAwAiDnwgAiANaiIDQThqKQMAIAFBOGopAwAiD4UiBkIgiCAGQv////8Pg358IQYgCCABQSBqKQMAIhB8IANBKGopAwAgAUEoaikDACIRhSIIQiCIIAhC/////w+DfnwhCCAKIAFBEGopAwAiEnwgA0EYaikDACABQRhqKQMAIhOFIgpCIIggCkL/////D4N+fCEKIAwgASkDACIUfCADQQhqKQMAIAFBCGopAwAiFYUiDEIgiCAMQv////8Pg358IQwgA0EwaikDACAOhSIOQiCIIA5C/////w+DfiAFfCAPfCEFIANBIGopAwAgEIUiDkIgiCAOQv////8Pg34gB3wgEXwhByADQRBqKQMAIBKFIg5CIIggDkL/////D4N+IAl8IBN8IQkgAykDACAUhSIOQiCIIA5C/////w+DfiALfCAVfCELIAFBwABqIQEgBCANQQhqIg1HDQALIAAgCjcDGCAAIAs3AwAgACAMNwMIIAAgCDcDKCAAIAk3AxAgACAGNwM4IAAgBzcDICAAIAU3AzALC94CAgF/AX4CQCAEIAIgASgCACIHayICSQ0AIAAgAyAFIAdBA3RqIAIQASAAIAUgBmoiBykDACAAKQMAIghCL4iFIAiFQrHz3fEJfjcDACAAIAcpAwggACkDCCIIQi+IhSAIhUKx893xCX43AwggACAHKQMQIAApAxAiCEIviIUgCIVCsfPd8Ql+NwMQIAAgBykDGCAAKQMYIghCL4iFIAiFQrHz3fEJfjcDGCAAIAcpAyAgACkDICIIQi+IhSAIhUKx893xCX43AyAgACAHKQMoIAApAygiCEIviIUgCIVCsfPd8Ql+NwMoIAAgBykDMCAAKQMwIghCL4iFIAiFQrHz3fEJfjcDMCAAIAcpAzggACkDOCIIQi+IhSAIhUKx893xCX43AzggACADIAJBBnRqIAUgBCACayIHEAEgASAHNgIADwsgACADIAUgB0EDdGogBBABIAEgByAEajYCAAvlAwEGfiABKQM4IAApAziFIgNC/////w+DIgQgASkDMCAAKQMwhSIFQiCIIgZ+IgcgA0IgiCIIIAVC/////w+DIgV+fCIDQiCIIAggBn58QoCAgIAQQgAgAyAHVBt8IANCIIYiAyAEIAV+fCIEIANUrXwgBIUgASkDKCAAKQMohSIDQv////8PgyIEIAEpAyAgACkDIIUiBUIgiCIGfiIHIANCIIgiCCAFQv////8PgyIFfnwiA0IgiCAIIAZ+fEKAgICAEEIAIAMgB1QbfCADQiCGIgMgBCAFfnwiBCADVK18IASFIAEpAxggACkDGIUiA0L/////D4MiBCABKQMQIAApAxCFIgVCIIgiBn4iByADQiCIIgggBUL/////D4MiBX58IgNCIIggCCAGfnxCgICAgBBCACADIAdUG3wgA0IghiIDIAQgBX58IgQgA1StfCAEhSABKQMIIAApAwiFIgNC/////w+DIgQgASkDACAAKQMAhSIFQiCIIgZ+IgcgA0IgiCIIIAVC/////w+DIgV+fCIDQiCIIAggBn58QoCAgIAQQgAgAyAHVBt8IANCIIYiAyAEIAV+fCIEIANUrXwgBIUgAnx8fHwiA0IliCADhUL5893xmfKZqxZ+IgNCIIggA4ULgAgBBX4CQCABQQlJDQAgACABQfiDBWopAwAiBCACKQM4IAIpAzCFIAN8hSIFQv////8Pg0L3lK+vCH4gBUKAgICAcIN8QQApA4CEBSACKQMoIAIpAyCFIAN9hSAEhSIDQiCIIgRCsfPd8Ql+fCAEQoeVr68IfiIEIANC/////w+DIgVCsfPd8Ql+fCIDQiCIfEKAgICAEEIAIAMgBFQbfCADQiCGIgMgBUKHla+vCH58IgQgA1StfCIDQjiGIANCgP4Dg0IohoQgA0KAgPwHg0IYhiADQoCAgPgPg0IIhoSEIANCCIhCgICA+A+DIANCGIhCgID8B4OEIANCKIhCgP4DgyADQjiIhISEIAQgAUF/aq1CNoZ8hSIEQiCIIgVCz9bTvgJ+IARC/////w+DIgRCvdzKlQx+fCIGQiCGIgcgBELP1tO+An58IgRCJYggBIVC+fPd8ZnymasWfiIIQiCIIAiFNwMAIAAgBUK93MqVDH4gA0LP1tO+0ser2UJ+fCAGQiCIfCAEIAdUrXwiA0IliCADhUL5893xmfKZqxZ+IgNCIIggA4U3AwgPCwJAIAFBBEkNACAAIAIpAxggAikDEIUgA6ciAkH/gfwHcUEIeCACQRh4Qf+B/Adxcq1CIIYgA4V8IAFB/IMFajUCAEIghkEANQKAhAWEhSIDQiCIIgQgAUECdEGHla+veGqtIgV+IgYgA0L/////D4MiB0Kx893xCX58IgNCIIggBEKx893xCX58QoCAgIAQQgAgAyAGVBt8IANCIIYiBCAHIAV+fCIDQgGGfCADIARUrXwiBEIliCAEhUL5893xmfKZqxZ+IgVCIIggBYU3AwggACAEQgOIIAOFIgNCI4ggA4VCpb7j9NGMh9mff34iA0IciCADhTcDAA8LAkAgAUUNACAAIAMgAigCBCACKAIAc618IgRCIYhBAC0AgIQFQRB0IAFBCHRyIAFBAXYtAICEBUEYdHIgAUH/gwVqLQAAciIBrYUgBIVCz9bTvtLHq9lCfiIEQh2IIASFQvnz3fGZ9pmrFn4iBEIgiCAEhTcDACAAIAIoAgwgAigCCHOtIAN9IgNCIYggAUH/gfwHcUEIeCABQRh4Qf+B/AdxckENd62FIAOFQs/W077Sx6vZQn4iA0IdiCADhUL5893xmfaZqxZ+IgNCIIggA4U3AwgPCyAAIAIpA1AgAikDWIUgA4UiBEIhiCAEhULP1tO+0ser2UJ+IgRCHYggBIVC+fPd8Zn2masWfiIEQiCIIASFNwMIIAAgAikDQCACKQNIhSADhSIDQiGIIAOFQs/W077Sx6vZQn4iA0IdiCADhUL5893xmfaZqxZ+IgNCIIggA4U3AwALvQoBDH4gAa0iBEKHla+vmLbem55/fiEFAkACQCABQSFPDQBCACEGDAELAkACQCABQcEATw0AQgAhBgwBCwJAAkAgAUHhAE8NAEIAIQYMAQtBACkDuIQFIgdBACkDsIQFIgh8IAJB+ABqKQMAIAN9IAFByIMFaikDACIJhSIKQv////8PgyIGIAIpA3AgA3wgAUHAgwVqKQMAIguFIgxCIIgiDX4iDiAKQiCIIg8gDEL/////D4MiDH58IgpCIIggDyANfnxCgICAgBBCACAKIA5UG3wgCkIghiIKIAYgDH58IgYgClStfIUgBoUhBiACQegAaikDACADfSAHhSIKQv////8PgyIHIAIpA2AgA3wgCIUiCEIgiCIMfiINIApCIIgiDiAIQv////8PgyIIfnwiCkIgiCAOIAx+fEKAgICAEEIAIAogDVQbfCAKQiCGIgogByAIfnwiByAKVK18IAeFIAV8IAkgC3yFIQULIAJB2ABqKQMAIAN9IAFB2IMFaikDACIHhSIKQv////8PgyIIIAIpA1AgA3wgAUHQgwVqKQMAIgmFIgtCIIgiDH4iDSAKQiCIIg4gC0L/////D4MiC358IgpCIIggDiAMfnxCgICAgBBCACAKIA1UG3wgCkIghiIKIAggC358IgggClStfCAIhSAGfEEAKQOohAUiCkEAKQOghAUiCHyFIQYgAkHIAGopAwAgA30gCoUiCkL/////D4MiCyACKQNAIAN8IAiFIghCIIgiDH4iDSAKQiCIIg4gCEL/////D4MiCH58IgpCIIggDiAMfnxCgICAgBBCACAKIA1UG3wgCkIghiIKIAsgCH58IgggClStfCAIhSAFfCAHIAl8hSEFCyACQThqKQMAIAN9IAFB6IMFaikDACIHhSIKQv////8PgyIIIAIpAzAgA3wgAUHggwVqKQMAIgmFIgtCIIgiDH4iDSAKQiCIIg4gC0L/////D4MiC358IgpCIIggDiAMfnxCgICAgBBCACAKIA1UG3wgCkIghiIKIAggC358IgggClStfCAIhSAGfEEAKQOYhAUiCkEAKQOQhAUiCHyFIQYgAkEoaikDACADfSAKhSIKQv////8PgyILIAIpAyAgA3wgCIUiCEIgiCIMfiINIApCIIgiDiAIQv////8PgyIIfnwiCkIgiCAOIAx+fEKAgICAEEIAIAogDVQbfCAKQiCGIgogCyAIfnwiCCAKVK18IAiFIAV8IAcgCXyFIQULIAAgAkEYaikDACADfSABQfiDBWopAwAiB4UiCkL/////D4MiCCACKQMQIAN8IAFB8IMFaikDACIJhSILQiCIIgx+Ig0gCkIgiCIOIAtC/////w+DIgt+fCIKQiCIIA4gDH58QoCAgIAQQgAgCiANVBt8IApCIIYiCiAIIAt+fCIIIApUrXwgCIUgBnxBACkDiIQFIgpBACkDgIQFIgZ8hSIIIAJBCGopAwAgA30gCoUiCkL/////D4MiCyACKQMAIAN8IAaFIgZCIIgiDH4iDSAKQiCIIg4gBkL/////D4MiBn58IgpCIIggDiAMfnxCgICAgBBCACAKIA1UG3wgCkIghiIKIAsgBn58IgYgClStfCAGhSAFfCAHIAl8hSIFfCIKQiWIIAqFQvnz3fGZ8pmrFn4iCkIgiCAKhTcDACAAQgAgBUKHla+vmLbem55/fiAEIAN9Qs/W077Sx6vZQn58IAhC49zKlfzO8vWFf358IgNCJYggA4VC+fPd8ZnymasWfiIDQiCIIAOFfTcDCAuGDwMBfxV+An9BACEEIAJB+ABqKQMAIAN9QQApA/iEBSIFhSIGQv////8PgyIHIAIpA3AgA3xBACkD8IQFIgiFIglCIIgiCn4iCyAGQiCIIgwgCUL/////D4MiCX58IgZCIIggDCAKfnxCgICAgBBCACAGIAtUG3wgBkIghiIGIAcgCX58IgcgBlStfCAHhSACQdgAaikDACADfUEAKQPYhAUiCYUiBkL/////D4MiByACKQNQIAN8QQApA9CEBSIKhSILQiCIIgx+Ig0gBkIgiCIOIAtC/////w+DIgt+fCIGQiCIIA4gDH58QoCAgIAQQgAgBiANVBt8IAZCIIYiBiAHIAt+fCIHIAZUrXwgB4UgAkE4aikDACADfUEAKQO4hAUiC4UiBkL/////D4MiByACKQMwIAN8QQApA7CEBSIMhSINQiCIIg5+Ig8gBkIgiCIQIA1C/////w+DIg1+fCIGQiCIIBAgDn58QoCAgIAQQgAgBiAPVBt8IAZCIIYiBiAHIA1+fCIHIAZUrXwgB4UgAkEYaikDACADfUEAKQOYhAUiDYUiBkL/////D4MiByACKQMQIAN8QQApA5CEBSIOhSIPQiCIIhB+IhEgBkIgiCISIA9C/////w+DIg9+fCIGQiCIIBIgEH58QoCAgIAQQgAgBiARVBt8IAZCIIYiBiAHIA9+fCIHIAZUrXxBACkDiIQFIg9BACkDgIQFIhB8hSAHhXxBACkDqIQFIhFBACkDoIQFIhJ8hXxBACkDyIQFIhNBACkDwIQFIhR8hXxBACkD6IQFIgZBACkD4IQFIhV8hSIHQiWIIAeFQvnz3fGZ8pmrFn4iB0IgiCAHhSEHIAJB6ABqKQMAIAN9IAaFIgZC/////w+DIhYgAikDYCADfCAVhSIVQiCIIhd+IhggBkIgiCIZIBVC/////w+DIhV+fCIGQiCIIBkgF358QoCAgIAQQgAgBiAYVBt8IAZCIIYiBiAWIBV+fCIVIAZUrXwgFYUgAkHIAGopAwAgA30gE4UiBkL/////D4MiEyACKQNAIAN8IBSFIhRCIIgiFX4iFiAGQiCIIhcgFEL/////D4MiFH58IgZCIIggFyAVfnxCgICAgBBCACAGIBZUG3wgBkIghiIGIBMgFH58IhMgBlStfCAThSACQShqKQMAIAN9IBGFIgZC/////w+DIhEgAikDICADfCAShSISQiCIIhN+IhQgBkIgiCIVIBJC/////w+DIhJ+fCIGQiCIIBUgE358QoCAgIAQQgAgBiAUVBt8IAZCIIYiBiARIBJ+fCIRIAZUrXwgEYUgAkEIaikDACADfSAPhSIGQv////8PgyIPIAIpAwAgA3wgEIUiEEIgiCIRfiISIAZCIIgiEyAQQv////8PgyIQfnwiBkIgiCATIBF+fEKAgICAEEIAIAYgElQbfCAGQiCGIgYgDyAQfnwiDyAGVK18IA+FIAGtIg9Ch5Wvr5i23puef358IA0gDnyFfCALIAx8hXwgCSAKfIV8IAUgCHyFIgZCJYggBoVC+fPd8ZnymasWfiIGQiCIIAaFIQUCQCABQaABSQ0AIAFBYHFBgH9qIRoDQCACIARqIhtBG2opAwAgA30gBEGYhQVqKQMAIgiFIgZC/////w+DIgkgG0ETaikDACADfCAEQZCFBWopAwAiCoUiC0IgiCIMfiINIAZCIIgiDiALQv////8PgyILfnwiBkIgiCAOIAx+fEKAgICAEEIAIAYgDVQbfCAGQiCGIgYgCSALfnwiCSAGVK18IAmFIAd8IARBiIUFaikDACIGIARBgIUFaikDACIJfIUhByAbQQtqKQMAIAN9IAaFIgZC/////w+DIgsgG0EDaikDACADfCAJhSIJQiCIIgx+Ig0gBkIgiCIOIAlC/////w+DIgl+fCIGQiCIIA4gDH58QoCAgIAQQgAgBiANVBt8IAZCIIYiBiALIAl+fCIJIAZUrXwgCYUgBXwgCCAKfIUhBSAaIARBIGoiBEcNAAsLIAAgAkH/AGopAwAgA3wgAUHogwVqKQMAIgiFIgZC/////w+DIgkgAikDdyADfSABQeCDBWopAwAiCoUiC0IgiCIMfiINIAZCIIgiDiALQv////8PgyILfnwiBkIgiCAOIAx+fEKAgICAEEIAIAYgDVQbfCAGQiCGIgYgCSALfnwiCSAGVK18IAmFIAd8IAFB+IMFaikDACIGIAFB8IMFaikDACIHfIUiCSACQe8AaikDACADfCAGhSIGQv////8PgyILIAIpA2cgA30gB4UiB0IgiCIMfiINIAZCIIgiDiAHQv////8PgyIHfnwiBkIgiCAOIAx+fEKAgICAEEIAIAYgDVQbfCAGQiCGIgYgCyAHfnwiByAGVK18IAeFIAV8IAggCnyFIgZ8IgdCJYggB4VC+fPd8ZnymasWfiIHQiCIIAeFNwMAIABCACAGQoeVr6+Ytt6bnn9+IA8gA31Cz9bTvtLHq9lCfnwgCULj3MqV/M7y9YV/fnwiA0IliCADhUL5893xmfKZqxZ+IgNCIIggA4V9NwMIC+EFAgF+AX8CQAJAQQApA4CCBCIAUEUNAEGAgAQhAUIAIQAMAQsCQCAAQQApA6CGBVINAEEAIQEMAQtBACEBQQBCr6/v17z3kqD+ACAAfTcD+IMFQQAgAELFluv52NKFgih8NwPwgwVBAEKP8eONrY/0mE4gAH03A+iDBUEAIABCq6z4xdXv0dB8fDcD4IMFQQBC063UspKFtbSefyAAfTcD2IMFQQAgAEKXmvSO9Za87ckAfDcD0IMFQQBCxYOC/a//xLFrIAB9NwPIgwVBACAAQuqLs53I5vT1Q3w3A8CDBUEAQsi/+sucm9655AAgAH03A7iDBUEAIABCiqOB39SZ7awxfDcDsIMFQQBC+bnvvfz4wqcdIAB9NwOogwVBACAAQqj12/uznKeaP3w3A6CDBUEAQriyvLeU1bfWWCAAfTcDmIMFQQAgAELxyKG6qbTD/M4AfDcDkIMFQQBCiKGX27jjlJejfyAAfTcDiIMFQQAgAEK80Mjam/KwgEt8NwOAgwVBAELg68C0ntCOk8wAIAB9NwP4ggVBACAAQriRmKL3/pCSjn98NwPwggVBAEKCtcHux/m/uSEgAH03A+iCBUEAIABCy/OZ98SZ8PL4AHw3A+CCBUEAQvKAkaX69uyzHyAAfTcD2IIFQQAgAELeqbfLvpDky1t8NwPQggVBAEL8goTk8r7I1hwgAH03A8iCBUEAIABCuP2zy7OE6aW+f3w3A8CCBQtBAEIANwOQhgVBAEIANwOIhgVBAEIANwOAhgVBAEK93MqVDDcDgIIFQQBCh5Wvr5i23puefzcDiIIFQQBCz9bTvtLHq9lCNwOQggVBAEL5893xmfaZqxY3A5iCBUEAQuPcypX8zvL1hX83A6CCBUEAQveUr68INwOoggVBAELFz9my8eW66ic3A7CCBUEAQrHz3fEJNwO4ggVBACAANwOghgVBACABNgKwhgVBAEKQgICAgBA3A5iGBQvWCgEIf0EAQQApA5CGBSAArXw3A5CGBQJAAkACQEEAKAKAhgUiASAAaiICQYACSw0AIAFBgIQFaiEDQYCCBCEEAkAgAEEITw0AIAAhBQwCC0GAggQhBAJAAkAgAEF4aiIBQThxQThHDQAgACEFDAELQYCCBCEEIAFBA3ZBAWpBB3EiBiEFA0AgAyAEKQMANwMAIANBCGohAyAEQQhqIQQgBUF/aiIFDQALIAAgBkEDdGshBSABQThJDQILA0AgAyAEKQMANwMAIANBCGogBEEIaikDADcDACADQRBqIARBEGopAwA3AwAgA0EYaiAEQRhqKQMANwMAIANBIGogBEEgaikDADcDACADQShqIARBKGopAwA3AwAgA0EwaiAEQTBqKQMANwMAIANBOGogBEE4aikDADcDACADQcAAaiEDIARBwABqIQQgBUFAaiIFQQdLDQAMAgsLQYCCBCEEIABBgIIEaiEGQQAoArCGBSIDQcCCBSADGyEFAkAgAUUNACABQYCEBWohA0GAggQhBAJAAkBBgAIgAWsiB0EITw0AIAchAgwBC0GAggQhBAJAAkBB+AEgAWsiAEE4cUE4Rw0AIAchAgwBC0EAIABBA3ZBAWpBB3EiCGshAkGAggQhBANAIAMgBCkDADcDACADQQhqIQMgBEEIaiEEIAJBAWoiAg0AC0GAAiABIAhBA3RqayECIABBOEkNAQsDQCADIAQpAwA3AwAgA0EIaiAEQQhqKQMANwMAIANBEGogBEEQaikDADcDACADQRhqIARBGGopAwA3AwAgA0EgaiAEQSBqKQMANwMAIANBKGogBEEoaikDADcDACADQTBqIARBMGopAwA3AwAgA0E4aiAEQThqKQMANwMAIANBwABqIQMgBEHAAGohBCACQUBqIgJBB0sNAAsLAkAgAkUNAAJAAkAgAkEHcSIADQAgAiEADAELA0AgAyAELQAAOgAAIANBAWohAyAEQQFqIQQgAEF/aiIADQALIAJBeHEhAAsgAkEISQ0AA0AgAyAEKQAANwAAIANBCGohAyAEQQhqIQQgAEF4aiIADQALC0GAggVBiIYFQQAoApiGBUGAhAVBBCAFQQAoApyGBRACQQBBADYCgIYFIAdBgIIEaiEECwJAIARBgAJqIAZPDQAgBkGAfmohAgNAQYCCBUGIhgVBACgCmIYFIAQiA0EEIAVBACgCnIYFEAIgA0GAAmoiBCACSQ0AC0EAIAMpA8ABNwPAhQVBACADKQPIATcDyIUFQQAgAykD0AE3A9CFBUEAIAMpA9gBNwPYhQVBACADKQPgATcD4IUFQQAgAykD6AE3A+iFBUEAIAMpA/ABNwPwhQVBACADKQP4ATcD+IUFC0GAhAUhAwJAAkAgBiAEayICQQhPDQAgAiEFDAELQYCEBSEDIAIhBQNAIAMgBCkDADcDACADQQhqIQMgBEEIaiEEIAVBeGoiBUEHSw0ACwsgBUUNASADIAQtAAA6AAAgBUEBRg0BIAMgBC0AAToAASAFQQJGDQEgAyAELQACOgACIAVBA0YNASADIAQtAAM6AAMgBUEERg0BIAMgBC0ABDoABCAFQQVGDQEgAyAELQAFOgAFIAVBBkYNASADIAQtAAY6AAYMAQsgBUUNAAJAAkAgBUEHcSICDQAgBSECDAELA0AgAyAELQAAOgAAIANBAWohAyAEQQFqIQQgAkF/aiICDQALIAVBeHEhAgsCQCAFQQhJDQADQCADIAQpAAA3AAAgA0EIaiEDIARBCGohBCACQXhqIgINAAsLQQAoAoCGBSAAaiECC0EAIAI2AoCGBQvLEAQEfwh+Bn8DfiMAIgAhASAAQYABa0FAcSICJABBACgCsIYFIgBBwIIFIAAbIQMCQAJAAkACQAJAAkBBACkDkIYFIgRC8QFUDQAgAkEAKQOAggU3AwAgAkEAKQOIggUiBTcDCCACQQApA5CCBSIGNwMQIAJBACkDmIIFIgc3AxggAkEAKQOgggUiCDcDICACQQApA6iCBSIJNwMoIAJBACkDsIIFIgo3AzAgAkEAKQO4ggUiCzcDOAJAQQAoAoCGBSIMQcAASQ0AIAJBACgCiIYFNgJAIAIgAkHAAGpBACgCmIYFQYCEBSAMQX9qQQZ2IANBACgCnIYFIgAQAiACIAIpAwggDEHAgwVqKQMAIgV8IAMgAGoiACkDASAMQciDBWopAwAiBoUiB0IgiCAHQv////8Pg358NwMIIAIgAikDGCAMQdCDBWopAwAiB3wgACkDESAMQdiDBWopAwAiCIUiCUIgiCAJQv////8Pg358NwMYIAIgBiAFIABBeWopAwCFIgVCIIggBUL/////D4N+IAIpAwB8fDcDACACIAggByAAKQMJhSIFQiCIIAVC/////w+DfiACKQMQfHw3AxAgACkDGSEFIAIpAyAhBiACIAIpAyggDEHggwVqKQMAIgd8IAApAyEgDEHogwVqKQMAIgiFIglCIIggCUL/////D4N+fDcDKCACIAggBiAFIAeFIgVCIIggBUL/////D4N+fHw3AyAgAiACKQM4IAxB8IMFaikDACIFfCAAKQMxIAxB+IMFaikDACIGhSIHQiCIIAdC/////w+Dfnw3AzggAiAGIAUgACkDKYUiBUIgiCAFQv////8Pg34gAikDMHx8NwMwQQAoApyGBSENDAULIAxBwIUFaiENQcAAIAxrIQ4gAkHAAGohAAJAIAxBOE0NACAOIQ8MAwsCQEE4IAxrQQN2IgBBB0YNAEEAIABBAWpBB3EiEGshDyACQcAAaiEAA0AgACANKQMANwMAIABBCGohACANQQhqIQ0gD0EBaiIPDQALQcAAIAwgEEEDdGprIQ8MAgsgAkHAAGohACAOIQ8DQCAAIA0pAwA3AwAgAEEIaiANQQhqKQMANwMAIABBEGogDUEQaikDADcDACAAQRhqIA1BGGopAwA3AwAgAEEgaiANQSBqKQMANwMAIABBKGogDUEoaikDADcDACAAQTBqIA1BMGopAwA3AwAgAEE4aiANQThqKQMANwMAIABBwABqIQAgDUHAAGohDSAPQUBqIg9BB0sNAAwCCwsgBKchAAJAQQApA6CGBSIFUA0AAkAgBEIQVg0AIAJBwABqIABBgIAEIAUQBAwGCwJAIARCgAFWDQAgAkHAAGogAEGAgAQgBRAFDAYLIAJBwABqIABBgIAEIAUQBgwFCwJAIARCEFYNACACQcAAaiAAIANCABAEDAULAkAgBEKAAVYNACACQcAAaiAAIANCABAFDAULIAJBwABqIAAgA0IAEAYMBAsgD0UNAQsgD0F/aiERAkAgD0EHcSIQRQ0AA0AgACANLQAAOgAAIABBAWohACANQQFqIQ0gEEF/aiIQDQALIA9BeHEhDwsgEUEHSQ0AA0AgACANKQAANwAAIABBCGohACANQQhqIQ0gD0F4aiIPDQALCyACQcAAaiAOaiENQYCEBSEAAkAgDEEISQ0AIAxBeGoiEEEDdkEBaiEPQYCEBSEAA0AgDSAAKQMANwMAIA1BCGohDSAAQQhqIQAgD0F/aiIPDQALIAwgEEF4cWtBeGohDAsCQCAMRQ0AAkACQCAMQQdxIg8NACAMIQ8MAQsDQCANIAAtAAA6AAAgDUEBaiENIABBAWohACAPQX9qIg8NAAsgDEF4cSEPCyAMQQhJDQADQCANIAApAAA3AAAgDUEIaiENIABBCGohACAPQXhqIg8NAAsLIAIgBSACKQNAIhJ8IANBACgCnIYFIg1qIgApAwEgAikDSCIFhSITQiCIIBNC/////w+Dfnw3AwggAiAHIAIpA1AiE3wgACkDESACKQNYIgeFIhRCIIggFEL/////D4N+fDcDGCACIAcgEyAAKQMJhSITQiCIIBNC/////w+DfiAGfHw3AxAgAiAFIBIgAEF5aikDAIUiBkIgiCAGQv////8Pg34gAikDAHx8NwMAIAApAxkhBSACIAkgAikDYCIGfCAAKQMhIAIpA2giB4UiCUIgiCAJQv////8Pg358NwMoIAIgByAFIAaFIgVCIIggBUL/////D4N+IAh8fDcDICACIAsgAikDcCIFfCAAKQMxIAIpA3giBoUiB0IgiCAHQv////8Pg358NwM4IAIgBiAFIAApAymFIgVCIIggBUL/////D4N+IAp8fDcDMAsgAiACIANBC2ogBEKHla+vmLbem55/fhADNwNAIAIgAiADIA1qQXVqIARCz9bTvtLHq9lCfkJ/hRADNwNIC0EAIAIpA3g3A8CCBEEAIAIpA3A3A7iCBEEAIAIpA2g3A7CCBEEAIAIpA2A3A6iCBEEAIAIpA1g3A6CCBEEAIAIpA1A3A5iCBEEAIAIpA0giBEI4hiAEQoD+A4NCKIaEIARCgID8B4NCGIYgBEKAgID4D4NCCIaEhCAEQgiIQoCAgPgPgyAEQhiIQoCA/AeDhCAEQiiIQoD+A4MgBEI4iISEhCIENwOAggRBACAENwOQggRBACACKQNAIgRCOIYgBEKA/gODQiiGhCAEQoCA/AeDQhiGIARCgICA+A+DQgiGhIQgBEIIiEKAgID4D4MgBEIYiEKAgPwHg4QgBEIoiEKA/gODIARCOIiEhIQ3A4iCBCABJAALBgBBgIIFCwIACwvNAQEAQYCABAvEAbj+bDkjpEu+fAGBLPchrRze1G3pg5CX23JApKS3s2cfy3nmTszA5XiCWtB9zP9yIbgIRnT3QySO4DWQ5oE6Jkw8KFK7kcMAy4jQZYsbUy6jcWRIl6IN+U44Ge9Gqd6s2Kj6dj/jnDQ/+dy7x8cLTx2KUeBLzbRZMciffsnZeHNk6sWsgzTT68PFgaD/+hNj6xcN3VG38NpJ0xZVJinUaJ4rFr5YfUeh/I/4uNF60DHORcs6j5UWBCiv1/vKu0tAfkACAAA=";
var hash$5 = "6c7d9155";
var wasmJson$5 = {
	name: name$5,
	data: data$5,
	hash: hash$5
};

const mutex$3 = new Mutex();
let wasmCache$3 = null;
const seedBuffer = new Uint8Array(8);
function validateSeed(seed) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
        return new Error("Seed must be given as two valid 32-bit long unsigned integers (lo + high).");
    }
    return null;
}
function writeSeed(arr, low, high) {
    // write in little-endian format
    const buffer = new DataView(arr);
    buffer.setUint32(0, low, true);
    buffer.setUint32(4, high, true);
}
/**
 * Calculates xxHash128 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @param seedLow Lower 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 * @param seedHigh Higher 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 * @returns Computed hash as a hexadecimal string
 */
function xxhash128(data, seedLow = 0, seedHigh = 0) {
    if (validateSeed(seedLow)) {
        return Promise.reject(validateSeed(seedLow));
    }
    if (validateSeed(seedHigh)) {
        return Promise.reject(validateSeed(seedHigh));
    }
    if (wasmCache$3 === null) {
        return lockedCreate(mutex$3, wasmJson$5, 16).then((wasm) => {
            wasmCache$3 = wasm;
            writeSeed(seedBuffer.buffer, seedLow, seedHigh);
            wasmCache$3.writeMemory(seedBuffer);
            return wasmCache$3.calculate(data);
        });
    }
    try {
        writeSeed(seedBuffer.buffer, seedLow, seedHigh);
        wasmCache$3.writeMemory(seedBuffer);
        const hash = wasmCache$3.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new xxHash128 hash instance
 * @param seedLow Lower 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 * @param seedHigh Higher 32 bits of the number used to
 *  initialize the internal state of the algorithm (defaults to 0)
 */
function createXXHash128(seedLow = 0, seedHigh = 0) {
    if (validateSeed(seedLow)) {
        return Promise.reject(validateSeed(seedLow));
    }
    if (validateSeed(seedHigh)) {
        return Promise.reject(validateSeed(seedHigh));
    }
    return WASMInterface(wasmJson$5, 16).then((wasm) => {
        const instanceBuffer = new Uint8Array(8);
        writeSeed(instanceBuffer.buffer, seedLow, seedHigh);
        wasm.writeMemory(instanceBuffer);
        wasm.init();
        const obj = {
            init: () => {
                wasm.writeMemory(instanceBuffer);
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 512,
            digestSize: 16,
        };
        return obj;
    });
}

var name$4 = "ripemd160";
var data$4 = "AGFzbQEAAAABEQRgAAF/YAAAYAF/AGACf38AAwkIAAECAwIBAAIFBAEBAgIGDwJ/AUGAgAQLfwBBgIAECweVAQoGbWVtb3J5AgAPX19zdGFja19wb2ludGVyAwAOSGFzaF9HZXRCdWZmZXIAAAlIYXNoX0luaXQAARByaXBlbWQxNjBfdXBkYXRlAAMLSGFzaF9VcGRhdGUABApIYXNoX0ZpbmFsAAUNSGFzaF9HZXRTdGF0ZQAGDkhhc2hfQ2FsY3VsYXRlAAcKU1RBVEVfU0laRQMBCuw0CAYAQYCBBAs6AEEAQfDDy558NgKYgQVBAEL+uevF6Y6VmRA3ApCBBUEAQoHGlLqW8ermbzcCiIEFQQBCADcCgIEFC9IqASB/QQAgACgCJCIBIAAoAgAiAiAAKAIQIgMgAiAAKAIsIgQgACgCDCIFIAAoAgQiBiAAKAI8IgcgAiAAKAIwIgggByAAKAIIIglBACgCiIEFIgpBACgCkIEFIgtBACgClIEFIgxBf3NyQQAoAoyBBSINc2ogACgCFCIOakHml4qFBWpBCHdBACgCmIEFIg9qIhBBCnciEWogASANQQp3IhJqIAIgC0EKdyITaiAMIAAoAhwiFGogDyAAKAI4IhVqIBAgDSATQX9zcnNqQeaXioUFakEJdyAMaiIWIBAgEkF/c3JzakHml4qFBWpBCXcgE2oiECAWIBFBf3Nyc2pB5peKhQVqQQt3IBJqIhcgECAWQQp3IhZBf3Nyc2pB5peKhQVqQQ13IBFqIhggFyAQQQp3IhlBf3Nyc2pB5peKhQVqQQ93IBZqIhpBCnciG2ogACgCGCIQIBhBCnciHGogACgCNCIRIBdBCnciF2ogAyAZaiAEIBZqIBogGCAXQX9zcnNqQeaXioUFakEPdyAZaiIWIBogHEF/c3JzakHml4qFBWpBBXcgF2oiFyAWIBtBf3Nyc2pB5peKhQVqQQd3IBxqIhggFyAWQQp3IhlBf3Nyc2pB5peKhQVqQQd3IBtqIhogGCAXQQp3IhdBf3Nyc2pB5peKhQVqQQh3IBlqIhtBCnciHGogBSAaQQp3Ih1qIAAoAigiFiAYQQp3IhhqIAYgF2ogACgCICIAIBlqIBsgGiAYQX9zcnNqQeaXioUFakELdyAXaiIXIBsgHUF/c3JzakHml4qFBWpBDncgGGoiGCAXIBxBf3Nyc2pB5peKhQVqQQ53IB1qIhkgGCAXQQp3IhpBf3Nyc2pB5peKhQVqQQx3IBxqIhcgGSAYQQp3IhtBf3Nyc2pB5peKhQVqQQZ3IBpqIhhBCnciHGogFCAXQQp3Ih1qIAUgGUEKdyIZaiAEIBtqIBAgGmogGCAXcyAZcSAXc2pBpKK34gVqQQl3IBtqIhcgGHMgHXEgGHNqQaSit+IFakENdyAZaiIYIBdzIBxxIBdzakGkorfiBWpBD3cgHWoiGSAYcyAXQQp3IhpxIBhzakGkorfiBWpBB3cgHGoiFyAZcyAYQQp3IhtxIBlzakGkorfiBWpBDHcgGmoiGEEKdyIcaiAVIBdBCnciHWogFiAZQQp3IhlqIA4gG2ogESAaaiAYIBdzIBlxIBdzakGkorfiBWpBCHcgG2oiFyAYcyAdcSAYc2pBpKK34gVqQQl3IBlqIhggF3MgHHEgF3NqQaSit+IFakELdyAdaiIZIBhzIBdBCnciGnEgGHNqQaSit+IFakEHdyAcaiIXIBlzIBhBCnciG3EgGXNqQaSit+IFakEHdyAaaiIYQQp3IhxqIAEgF0EKdyIdaiADIBlBCnciGWogCCAbaiAAIBpqIBggF3MgGXEgF3NqQaSit+IFakEMdyAbaiIXIBhzIB1xIBhzakGkorfiBWpBB3cgGWoiGCAXcyAccSAXc2pBpKK34gVqQQZ3IB1qIhkgGHMgF0EKdyIacSAYc2pBpKK34gVqQQ93IBxqIhcgGXMgGEEKdyIYcSAZc2pBpKK34gVqQQ13IBpqIhtBCnciHGogBiAXQQp3Ih1qIA4gGUEKdyIZaiAHIBhqIAkgGmogGyAXcyAZcSAXc2pBpKK34gVqQQt3IBhqIhcgG0F/c3IgHXNqQfP9wOsGakEJdyAZaiIYIBdBf3NyIBxzakHz/cDrBmpBB3cgHWoiGSAYQX9zciAXQQp3IhdzakHz/cDrBmpBD3cgHGoiGiAZQX9zciAYQQp3IhhzakHz/cDrBmpBC3cgF2oiG0EKdyIcaiABIBpBCnciHWogECAZQQp3IhlqIBUgGGogFCAXaiAbIBpBf3NyIBlzakHz/cDrBmpBCHcgGGoiFyAbQX9zciAdc2pB8/3A6wZqQQZ3IBlqIhggF0F/c3IgHHNqQfP9wOsGakEGdyAdaiIZIBhBf3NyIBdBCnciF3NqQfP9wOsGakEOdyAcaiIaIBlBf3NyIBhBCnciGHNqQfP9wOsGakEMdyAXaiIbQQp3IhxqIBYgGkEKdyIdaiAJIBlBCnciGWogCCAYaiAAIBdqIBsgGkF/c3IgGXNqQfP9wOsGakENdyAYaiIXIBtBf3NyIB1zakHz/cDrBmpBBXcgGWoiGCAXQX9zciAcc2pB8/3A6wZqQQ53IB1qIhkgGEF/c3IgF0EKdyIac2pB8/3A6wZqQQ13IBxqIhsgGUF/c3IgGEEKdyIYc2pB8/3A6wZqQQ13IBpqIhxBCnciF2ogACAZQQp3IhlqIAMgGmogHCAbQX9zciAZc2pB8/3A6wZqQQd3IBhqIhogF3MgESAYaiAaIBxBf3NyIBtBCnciG3NqQfP9wOsGakEFdyAZaiIccSAXc2pB6e210wdqQQ93IBtqIh0gHEEKdyIYcyAQIBtqIBwgGkEKdyIZcyAdcSAZc2pB6e210wdqQQV3IBdqIhtxIBhzakHp7bXTB2pBCHcgGWoiHEEKdyIXaiAEIB1BCnciGmogBiAZaiAbIBpzIBxxIBpzakHp7bXTB2pBC3cgGGoiHSAXcyAFIBhqIBwgG0EKdyIYcyAdcSAYc2pB6e210wdqQQ53IBpqIhpxIBdzakHp7bXTB2pBDncgGGoiGyAaQQp3IhlzIAcgGGogGiAdQQp3IhhzIBtxIBhzakHp7bXTB2pBBncgF2oiHHEgGXNqQenttdMHakEOdyAYaiIdQQp3IhdqIAkgG0EKdyIaaiAOIBhqIBwgGnMgHXEgGnNqQenttdMHakEGdyAZaiIbIBdzIAggGWogHSAcQQp3IhhzIBtxIBhzakHp7bXTB2pBCXcgGmoiGnEgF3NqQenttdMHakEMdyAYaiIcIBpBCnciGXMgESAYaiAaIBtBCnciGHMgHHEgGHNqQenttdMHakEJdyAXaiIbcSAZc2pB6e210wdqQQx3IBhqIh1BCnciFyAHaiAVIBxBCnciGmogFCAYaiAbIBpzIB1xIBpzakHp7bXTB2pBBXcgGWoiHCAXcyAWIBlqIB0gG0EKdyIYcyAccSAYc2pB6e210wdqQQ93IBpqIhlxIBdzakHp7bXTB2pBCHcgGGoiGiAZQQp3IhtzIBggCGogGSAcQQp3IhhzIBpzakEIdyAXaiIXc2pBBXcgGGoiGUEKdyIcIABqIBpBCnciGiAGaiAYIBZqIBcgGnMgGXNqQQx3IBtqIhggHHMgGyADaiAZIBdBCnciF3MgGHNqQQl3IBpqIhlzakEMdyAXaiIaIBlBCnciG3MgFyAOaiAZIBhBCnciF3MgGnNqQQV3IBxqIhhzakEOdyAXaiIZQQp3IhwgFWogGkEKdyIaIAlqIBcgFGogGCAacyAZc2pBBncgG2oiFyAccyAbIBBqIBkgGEEKdyIYcyAXc2pBCHcgGmoiGXNqQQ13IBhqIhogGUEKdyIbcyAYIBFqIBkgF0EKdyIYcyAac2pBBncgHGoiGXNqQQV3IBhqIhxBCnciHSAMaiAEIBYgDiAOIBEgFiAOIBQgASAAIAEgECAUIAQgECAGIA9qIBMgDXMgCyANcyAMcyAKaiACakELdyAPaiIXc2pBDncgDGoiHkEKdyIfaiADIBJqIAkgDGogFyAScyAec2pBD3cgE2oiDCAfcyAFIBNqIB4gF0EKdyITcyAMc2pBDHcgEmoiEnNqQQV3IBNqIhcgEkEKdyIecyATIA5qIBIgDEEKdyIMcyAXc2pBCHcgH2oiEnNqQQd3IAxqIhNBCnciH2ogASAXQQp3IhdqIAwgFGogEiAXcyATc2pBCXcgHmoiDCAfcyAeIABqIBMgEkEKdyIScyAMc2pBC3cgF2oiE3NqQQ13IBJqIhcgE0EKdyIecyASIBZqIBMgDEEKdyIMcyAXc2pBDncgH2oiEnNqQQ93IAxqIhNBCnciH2ogF0EKdyIXIBVqIAwgCGogEiAXcyATc2pBBncgHmoiICAfcyAeIBFqIBMgEkEKdyIScyAgc2pBB3cgF2oiE3NqQQl3IBJqIhcgE0EKdyIMcyASIAdqIBMgIEEKdyIecyAXc2pBCHcgH2oiH3EgDHNqQZnzidQFakEHdyAeaiIgQQp3IhJqIAYgF0EKdyITaiADIB5qIB8gE3MgIHEgE3NqQZnzidQFakEGdyAMaiIXIBJzIBEgDGogICAfQQp3IgxzIBdxIAxzakGZ84nUBWpBCHcgE2oiHnEgEnNqQZnzidQFakENdyAMaiIfIB5BCnciE3MgFiAMaiAeIBdBCnciDHMgH3EgDHNqQZnzidQFakELdyASaiIecSATc2pBmfOJ1AVqQQl3IAxqIiBBCnciEmogCCAfQQp3IhdqIAcgDGogHiAXcyAgcSAXc2pBmfOJ1AVqQQd3IBNqIh8gEnMgBSATaiAgIB5BCnciDHMgH3EgDHNqQZnzidQFakEPdyAXaiIXcSASc2pBmfOJ1AVqQQd3IAxqIh4gF0EKdyITcyACIAxqIBcgH0EKdyIMcyAecSAMc2pBmfOJ1AVqQQx3IBJqIh9xIBNzakGZ84nUBWpBD3cgDGoiIEEKdyISaiAEIB9BCnciF2ogCSATaiAgIBdzIA4gDGogHyAeQQp3IgxzICBxIAxzakGZ84nUBWpBCXcgE2oiHnEgF3NqQZnzidQFakELdyAMaiIfIB5BCnciE3MgFSAMaiAeIBJzIB9xIBJzakGZ84nUBWpBB3cgF2oiDHEgE3NqQZnzidQFakENdyASaiISIAxxIB9BCnciFyASQX9zIiBxcmpBmfOJ1AVqQQx3IBNqIh5BCnciH2ogAyASQQp3IhJqIBUgDEEKdyIMaiAWIBdqIAUgE2ogHiAgciAMc2pBodfn9gZqQQt3IBdqIhMgHkF/c3IgEnNqQaHX5/YGakENdyAMaiIMIBNBf3NyIB9zakGh1+f2BmpBBncgEmoiEiAMQX9zciATQQp3IhNzakGh1+f2BmpBB3cgH2oiFyASQX9zciAMQQp3IgxzakGh1+f2BmpBDncgE2oiHkEKdyIfaiAJIBdBCnciIGogBiASQQp3IhJqIAAgDGogByATaiAeIBdBf3NyIBJzakGh1+f2BmpBCXcgDGoiDCAeQX9zciAgc2pBodfn9gZqQQ13IBJqIhIgDEF/c3IgH3NqQaHX5/YGakEPdyAgaiITIBJBf3NyIAxBCnciDHNqQaHX5/YGakEOdyAfaiIXIBNBf3NyIBJBCnciEnNqQaHX5/YGakEIdyAMaiIeQQp3Ih9qIAQgF0EKdyIgaiARIBNBCnciE2ogECASaiACIAxqIB4gF0F/c3IgE3NqQaHX5/YGakENdyASaiIMIB5Bf3NyICBzakGh1+f2BmpBBncgE2oiEiAMQX9zciAfc2pBodfn9gZqQQV3ICBqIhMgEkF/c3IgDEEKdyIXc2pBodfn9gZqQQx3IB9qIh4gE0F/c3IgEkEKdyISc2pBodfn9gZqQQd3IBdqIgxBCnciH2ogBCAeQQp3IiBqIAEgE0EKdyITaiAGIBJqIAggF2ogDCAeQX9zciATc2pBodfn9gZqQQV3IBJqIhIgDHMgIHEgDHNqQdz57vh4akELdyATaiIMIBJzIB9xIBJzakHc+e74eGpBDHcgIGoiEyAMcyASQQp3IhdxIAxzakHc+e74eGpBDncgH2oiEiATcyAMQQp3Ih5xIBNzakHc+e74eGpBD3cgF2oiDEEKdyIfaiADIBJBCnciIGogCCATQQp3IhNqIAAgHmogAiAXaiAMIBJzIBNxIBJzakHc+e74eGpBDncgHmoiEiAMcyAgcSAMc2pB3Pnu+HhqQQ93IBNqIgwgEnMgH3EgEnNqQdz57vh4akEJdyAgaiITIAxzIBJBCnciF3EgDHNqQdz57vh4akEIdyAfaiISIBNzIAxBCnciHnEgE3NqQdz57vh4akEJdyAXaiIMQQp3Ih9qIBUgEkEKdyIgaiAHIBNBCnciE2ogFCAeaiAFIBdqIAwgEnMgE3EgEnNqQdz57vh4akEOdyAeaiISIAxzICBxIAxzakHc+e74eGpBBXcgE2oiDCAScyAfcSASc2pB3Pnu+HhqQQZ3ICBqIhMgDHMgEkEKdyIXcSAMc2pB3Pnu+HhqQQh3IB9qIhIgE3MgDEEKdyIecSATc2pB3Pnu+HhqQQZ3IBdqIgxBCnciH2ogAiASQQp3Ig5qIAMgE0EKdyITaiAJIB5qIBAgF2ogDCAScyATcSASc2pB3Pnu+HhqQQV3IB5qIgMgDHMgDnEgDHNqQdz57vh4akEMdyATaiIMIAMgH0F/c3JzakHO+s/KempBCXcgDmoiDiAMIANBCnciA0F/c3JzakHO+s/KempBD3cgH2oiEiAOIAxBCnciDEF/c3JzakHO+s/KempBBXcgA2oiE0EKdyIXaiAJIBJBCnciFmogCCAOQQp3IglqIBQgDGogASADaiATIBIgCUF/c3JzakHO+s/KempBC3cgDGoiAyATIBZBf3Nyc2pBzvrPynpqQQZ3IAlqIgggAyAXQX9zcnNqQc76z8p6akEIdyAWaiIJIAggA0EKdyIDQX9zcnNqQc76z8p6akENdyAXaiIOIAkgCEEKdyIIQX9zcnNqQc76z8p6akEMdyADaiIUQQp3IhZqIAAgDkEKdyIMaiAFIAlBCnciAGogBiAIaiAVIANqIBQgDiAAQX9zcnNqQc76z8p6akEFdyAIaiIDIBQgDEF/c3JzakHO+s/KempBDHcgAGoiACADIBZBf3Nyc2pBzvrPynpqQQ13IAxqIgYgACADQQp3IgNBf3Nyc2pBzvrPynpqQQ53IBZqIgggBiAAQQp3IgBBf3Nyc2pBzvrPynpqQQt3IANqIglBCnciFWo2ApCBBUEAIAsgGCACaiAZIBpBCnciAnMgHHNqQQ93IBtqIg5BCnciFmogECADaiAJIAggBkEKdyIDQX9zcnNqQc76z8p6akEIdyAAaiIGQQp3ajYCjIEFQQAgDSAbIAVqIBwgGUEKdyIFcyAOc2pBDXcgAmoiFEEKd2ogByAAaiAGIAkgCEEKdyIAQX9zcnNqQc76z8p6akEFdyADaiIHajYCiIEFQQAgACAKaiACIAFqIA4gHXMgFHNqQQt3IAVqIgFqIBEgA2ogByAGIBVBf3Nyc2pBzvrPynpqQQZ3ajYCmIEFQQAgACAPaiAdaiAFIARqIBQgFnMgAXNqQQt3ajYClIEFC5sEAQh/AkAgAUUNAEEAQQAoAoCBBSICIAFqIgM2AoCBBSACQT9xIQQCQCADIAJPDQBBAEEAKAKEgQVBAWo2AoSBBQsCQAJAIARFDQAgAUHAACAEayIFSQ0BIAVBA3EhBkEAIQMCQAJAIARBP3NBA0kNACAEQYCBBWohByAFQfwAcSEIQQAhAwNAIAcgA2oiAkEcaiAAIANqIgktAAA6AAAgAkEdaiAJQQFqLQAAOgAAIAJBHmogCUECai0AADoAACACQR9qIAlBA2otAAA6AAAgCCADQQRqIgNHDQALIAZFDQELIAAgA2ohAiADIARqQZyBBWohAwNAIAMgAi0AADoAACACQQFqIQIgA0EBaiEDIAZBf2oiBg0ACwtBnIEFEAIgASAFayEBIAAgBWohAAsCQCABQcAASQ0AA0AgABACIABBwABqIQAgAUFAaiIBQT9LDQALC0EAIQQgAUUNAQsgAUEDcSEJQQAhAgJAIAFBBEkNACAEQYCBBWohBiABQXxxIQdBACECA0AgBiACaiIBQRxqIAAgAmoiAy0AADoAACABQR1qIANBAWotAAA6AAAgAUEeaiADQQJqLQAAOgAAIAFBH2ogA0EDai0AADoAACAHIAJBBGoiAkcNAAsgCUUNAQsgACACaiEAIAIgBGpBnIEFaiECA0AgAiAALQAAOgAAIABBAWohACACQQFqIQIgCUF/aiIJDQALCwsKAEGAgQQgABADC98EAQl/IwBBEGsiACQAQQAhASAAQQAoAoCBBSICQQN0IgM2AgggAEEAKAKEgQVBA3QiBCACQR12ciIFNgIMQZCABEE4QfgAIAJBP3EiAkE4SRsgAmsQA0EIIQZBAEEAKAKAgQUiAkEIajYCgIEFIAJBP3EhBwJAIAJBeEkNAEEAQQAoAoSBBUEBajYChIEFCyAAQQhqIQgCQAJAAkACQCAHDQBBACEHDAELIAdBOEkNACAHIAM6AJyBBQJAIAdBP0YNACAHIANBCHY6AJ2BBSAHQT5GDQAgB0GegQVqIANBEHY6AAAgB0E9Rg0AIAdBn4EFaiADQRh2OgAAIAdBPEYNACAHQaCBBWogBToAACAHQTtGDQAgB0GhgQVqIARBCHY6AAAgB0E6Rg0AIAdBooEFaiAEQRB2OgAAIAdBOUYNAEEAIARBGHY6ANuBBUGcgQUQAgwDC0GcgQUQAiACQQNxIQEgB0FIaiEGIABBCGpBwAAgB2tqIQhBACEHQQAhAiAGQQRJDQELIAZBfHEhBUEAIQIDQCAHIAJqIgZBnIEFaiAIIAJqIgMtAAA6AAAgBkGdgQVqIANBAWotAAA6AAAgBkGegQVqIANBAmotAAA6AAAgBkGfgQVqIANBA2otAAA6AAAgBSACQQRqIgJHDQALIAFFDQELIAggAmohBiAHIAJqQZyBBWohAgNAIAIgBi0AADoAACAGQQFqIQYgAkEBaiECIAFBf2oiAQ0ACwtBAEEAKAKIgQU2AoCBBEEAQQApAoyBBTcChIEEQQBBACkClIEFNwKMgQQgAEEQaiQACwYAQYCBBQtEAEEAQfDDy558NgKYgQVBAEL+uevF6Y6VmRA3ApCBBUEAQoHGlLqW8ermbzcCiIEFQQBCADcCgIEFQYCBBCAAEAMQBQsLWAEAQYCABAtQXAAAAAAAAAAAAAAAAAAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
var hash$4 = "4f7957e4";
var wasmJson$4 = {
	name: name$4,
	data: data$4,
	hash: hash$4
};

const mutex$2 = new Mutex();
let wasmCache$2 = null;
/**
 * Calculates RIPEMD-160 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function ripemd160(data) {
    if (wasmCache$2 === null) {
        return lockedCreate(mutex$2, wasmJson$4, 20).then((wasm) => {
            wasmCache$2 = wasm;
            return wasmCache$2.calculate(data);
        });
    }
    try {
        const hash = wasmCache$2.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new RIPEMD-160 hash instance
 */
function createRIPEMD160() {
    return WASMInterface(wasmJson$4, 20).then((wasm) => {
        wasm.init();
        const obj = {
            init: () => {
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 64,
            digestSize: 20,
        };
        return obj;
    });
}

function calculateKeyBuffer(hasher, key) {
    const { blockSize } = hasher;
    const buf = getUInt8Buffer(key);
    if (buf.length > blockSize) {
        hasher.update(buf);
        const uintArr = hasher.digest("binary");
        hasher.init();
        return uintArr;
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}
function calculateHmac(hasher, key) {
    hasher.init();
    const { blockSize } = hasher;
    const keyBuf = calculateKeyBuffer(hasher, key);
    const keyBuffer = new Uint8Array(blockSize);
    keyBuffer.set(keyBuf);
    const opad = new Uint8Array(blockSize);
    for (let i = 0; i < blockSize; i++) {
        const v = keyBuffer[i];
        opad[i] = v ^ 0x5c;
        keyBuffer[i] = v ^ 0x36;
    }
    hasher.update(keyBuffer);
    const obj = {
        init: () => {
            hasher.init();
            hasher.update(keyBuffer);
            return obj;
        },
        update: (data) => {
            hasher.update(data);
            return obj;
        },
        digest: ((outputType) => {
            const uintArr = hasher.digest("binary");
            hasher.init();
            hasher.update(opad);
            hasher.update(uintArr);
            return hasher.digest(outputType);
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
        }),
        save: () => {
            throw new Error("save() not supported");
        },
        load: () => {
            throw new Error("load() not supported");
        },
        blockSize: hasher.blockSize,
        digestSize: hasher.digestSize,
    };
    return obj;
}
/**
 * Calculates HMAC hash
 * @param hash Hash algorithm to use. It has to be the return value of a function like createSHA1()
 * @param key Key (string, Buffer or TypedArray)
 */
function createHMAC(hash, key) {
    if (!hash || !hash.then) {
        throw new Error('Invalid hash function is provided! Usage: createHMAC(createMD5(), "key").');
    }
    return hash.then((hasher) => calculateHmac(hasher, key));
}

function calculatePBKDF2(digest, salt, iterations, hashLength, outputType) {
    return __awaiter(this, void 0, void 0, function* () {
        const DK = new Uint8Array(hashLength);
        const block1 = new Uint8Array(salt.length + 4);
        const block1View = new DataView(block1.buffer);
        const saltBuffer = getUInt8Buffer(salt);
        const saltUIntBuffer = new Uint8Array(saltBuffer.buffer, saltBuffer.byteOffset, saltBuffer.length);
        block1.set(saltUIntBuffer);
        let destPos = 0;
        const hLen = digest.digestSize;
        const l = Math.ceil(hashLength / hLen);
        let T = null;
        let U = null;
        for (let i = 1; i <= l; i++) {
            block1View.setUint32(salt.length, i);
            digest.init();
            digest.update(block1);
            T = digest.digest("binary");
            U = T.slice();
            for (let j = 1; j < iterations; j++) {
                digest.init();
                digest.update(U);
                U = digest.digest("binary");
                for (let k = 0; k < hLen; k++) {
                    T[k] ^= U[k];
                }
            }
            DK.set(T.subarray(0, hashLength - destPos), destPos);
            destPos += hLen;
        }
        if (outputType === "binary") {
            return DK;
        }
        const digestChars = new Uint8Array(hashLength * 2);
        return getDigestHex(digestChars, DK, hashLength);
    });
}
const validateOptions$2 = (options) => {
    if (!options || typeof options !== "object") {
        throw new Error("Invalid options parameter. It requires an object.");
    }
    if (!options.hashFunction || !options.hashFunction.then) {
        throw new Error('Invalid hash function is provided! Usage: pbkdf2("password", "salt", 1000, 32, createSHA1()).');
    }
    if (!Number.isInteger(options.iterations) || options.iterations < 1) {
        throw new Error("Iterations should be a positive number");
    }
    if (!Number.isInteger(options.hashLength) || options.hashLength < 1) {
        throw new Error("Hash length should be a positive number");
    }
    if (options.outputType === undefined) {
        options.outputType = "hex";
    }
    if (!["hex", "binary"].includes(options.outputType)) {
        throw new Error(`Insupported output type ${options.outputType}. Valid values: ['hex', 'binary']`);
    }
};
/**
 * Generates a new PBKDF2 hash for the supplied password
 */
function pbkdf2(options) {
    return __awaiter(this, void 0, void 0, function* () {
        validateOptions$2(options);
        const hmac = yield createHMAC(options.hashFunction, options.password);
        return calculatePBKDF2(hmac, options.salt, options.iterations, options.hashLength, options.outputType);
    });
}

var name$3 = "scrypt";
var data$3 = "AGFzbQEAAAABGwVgAX8Bf2AAAX9gBH9/f38AYAF/AGADf39/AAMGBQABAgMEBQYBAQKAgAIGCAF/AUGAgAQLB0sFBm1lbW9yeQIAD19fc3RhY2tfcG9pbnRlcgMAEkhhc2hfU2V0TWVtb3J5U2l6ZQAADkhhc2hfR2V0QnVmZmVyAAEGc2NyeXB0AAQKlScFXQMBfwF+AX9BACEBAkAgAEEAKQOIgAQiAqciA0YNAEEAIQECQCAAIANrIgBBEHYgAEH//wNxQQBHaiIAQABBf0cNAEH/AcAPC0EAIAIgAEEQdK18NwOIgAQLIAHAC3QDAn8BfgF/AkBBACgCgIAEIgANAEEAPwBBEHQiATYCgIAEAkBBACkDiIAEIgKnIgNBgIAgRg0AQQAhAEGAgCAgA2siA0EQdiADQf//A3FBAEdqIgNAAEF/Rg0BQQAgAiADQRB0rXw3A4iABAsgASEACyAAC70FAwF/AX4CfyACIAAgA0EHdGoiBEFAaikDADcDACACIARBSGopAwA3AwggAiAEQVBqKQMANwMQIAIgBEFYaikDADcDGCACIARBYGopAwA3AyAgAiAEQWhqKQMANwMoIAIgBEFwaikDADcDMCACIARBeGopAwAiBTcDOAJAIANFDQAgA0EBdCEGIANBBnQhB0EAIQMDQCACIAIpAwAgACkDAIU3AwAgAiACKQMIIABBCGopAwCFNwMIIAIgAikDECAAQRBqKQMAhTcDECACIAIpAxggAEEYaikDAIU3AxggAiACKQMgIABBIGopAwCFNwMgIAIgAikDKCAAQShqKQMAhTcDKCACIAIpAzAgAEEwaikDAIU3AzAgAiAFIABBOGopAwCFNwM4IAIQAyABIAIpAwA3AwAgAUEIaiACKQMINwMAIAFBEGogAikDEDcDACABQRhqIAIpAxg3AwAgAUEgaiACKQMgNwMAIAFBKGogAikDKDcDACABQTBqIAIpAzA3AwAgAUE4aiACKQM4IgU3AwAgAiACKQMAIABBwABqKQMAhTcDACACIAIpAwggAEHIAGopAwCFNwMIIAIgAikDECAAQdAAaikDAIU3AxAgAiACKQMYIABB2ABqKQMAhTcDGCACIAIpAyAgAEHgAGopAwCFNwMgIAIgAikDKCAAQegAaikDAIU3AyggAiACKQMwIABB8ABqKQMAhTcDMCACIAUgAEH4AGopAwCFNwM4IAIQAyABIAdqIgQgAikDADcDACAEQQhqIAIpAwg3AwAgBEEQaiACKQMQNwMAIARBGGogAikDGDcDACAEQSBqIAIpAyA3AwAgBEEoaiACKQMoNwMAIARBMGogAikDMDcDACAEQThqIAIpAzgiBTcDACAAQYABaiEAIAFBwABqIQEgA0ECaiIDIAZJDQALCwu6DQgBfgF/AX4BfwF+AX8BfhJ/IAAgACgCBCAAKQMoIgFCIIinIgIgACkDOCIDQiCIpyIEakEHdyAAKQMIIgVCIIincyIGIARqQQl3IAApAxgiB0IgiKdzIgggBmpBDXcgAnMiCSAHpyIKIAGnIgtqQQd3IAOncyICIAtqQQl3IAWncyIMIAJqQQ13IApzIg0gDGpBEncgC3MiDiAAKQMAIgFCIIinIg8gACkDECIDQiCIpyIQakEHdyAAKQMgIgVCIIincyILakEHd3MiCiAJIAhqQRJ3IARzIhEgAmpBB3cgACkDMCIHpyIJIAGnIhJqQQd3IAOncyIEIBJqQQl3IAWncyITIARqQQ13IAlzIhRzIgkgEWpBCXcgCyAQakEJdyAHQiCIp3MiFXMiFiAJakENdyACcyIXIBZqQRJ3IBFzIhFqQQd3IAYgFCATakESdyAScyISakEHdyAVIAtqQQ13IA9zIhRzIgIgEmpBCXcgDHMiDyACakENdyAGcyIYcyIGIBFqQQl3IAggDSAUIBVqQRJ3IBBzIhAgBGpBB3dzIgwgEGpBCXdzIghzIhUgBmpBDXcgCnMiFCAMIAogDmpBCXcgE3MiEyAKakENdyALcyIZIBNqQRJ3IA5zIgpqQQd3IBdzIgsgCmpBCXcgD3MiDiALakENdyAMcyIXIA5qQRJ3IApzIg0gAiAIIAxqQQ13IARzIgwgCGpBEncgEHMiCGpBB3cgGXMiCmpBB3dzIgQgFCAVakESdyARcyIQIAtqQQd3IAkgGCAPakESdyAScyIRakEHdyAMcyIMIBFqQQl3IBNzIhIgDGpBDXcgCXMiD3MiCSAQakEJdyAKIAhqQQl3IBZzIhNzIhYgCWpBDXcgC3MiFCAWakESdyAQcyIQakEHdyAGIA8gEmpBEncgEXMiEWpBB3cgEyAKakENdyACcyILcyICIBFqQQl3IA5zIg4gAmpBDXcgBnMiGHMiBiAQakEJdyAVIBcgCyATakESdyAIcyIIIAxqQQd3cyILIAhqQQl3cyITcyIVIAZqQQ13IARzIhcgCyAEIA1qQQl3IBJzIhIgBGpBDXcgCnMiGSASakESdyANcyIEakEHdyAUcyIKIARqQQl3IA5zIg8gCmpBDXcgC3MiFCAPakESdyAEcyINIAIgEyALakENdyAMcyIMIBNqQRJ3IAhzIghqQQd3IBlzIgtqQQd3cyIEIBcgFWpBEncgEHMiECAKakEHdyAJIBggDmpBEncgEXMiDmpBB3cgDHMiDCAOakEJdyAScyIRIAxqQQ13IAlzIhdzIgkgEGpBCXcgCyAIakEJdyAWcyIScyITIAlqQQ13IApzIhggE2pBEncgEHMiEGpBB3cgBiAXIBFqQRJ3IA5zIgpqQQd3IBIgC2pBDXcgAnMiF3MiAiAKakEJdyAPcyIOIAJqQQ13IAZzIhZzIgYgCSAWIA5qQRJ3IApzIhZqQQd3IBUgFCAXIBJqQRJ3IAhzIgggDGpBB3dzIgogCGpBCXdzIhIgCmpBDXcgDHMiD3MiDCAWakEJdyAEIA1qQQl3IBFzIhFzIhUgDGpBDXcgCXMiFCAVakESdyAWcyIJakEHdyACIA8gEmpBEncgCHMiCGpBB3cgESAEakENdyALcyIPcyILIAhqQQl3IBNzIhMgC2pBDXcgAnMiF3MiFmo2AgQgACAAKAIIIBYgCWpBCXcgCiAPIBFqQRJ3IA1zIhFqQQd3IBhzIgIgEWpBCXcgDnMiDnMiD2o2AgggACAAKAIMIA8gFmpBDXcgBnMiDWo2AgwgACAAKAIQIAYgEGpBCXcgEnMiEiAOIAJqQQ13IApzIhggFyATakESdyAIcyIKIAxqQQd3cyIIIApqQQl3cyIWIAhqQQ13IAxzIgxqNgIQIAAgACgCACANIA9qQRJ3IAlzajYCACAAIAAoAhQgDCAWakESdyAKc2o2AhQgACAAKAIYIAhqNgIYIAAgACgCHCAWajYCHCAAIAAoAiAgEiAGakENdyAEcyIJIBggDmpBEncgEXMiBiALakEHd3MiCiAGakEJdyAVcyIEajYCICAAIAAoAiQgBCAKakENdyALcyILajYCJCAAIAAoAiggCyAEakESdyAGc2o2AiggACAAKAIsIApqNgIsIAAgACgCMCAJIBJqQRJ3IBBzIgYgAmpBB3cgFHMiC2o2AjAgACAAKAI0IAsgBmpBCXcgE3MiCmo2AjQgACAAKAI4IAogC2pBDXcgAnMiAmo2AjggACAAKAI8IAIgCmpBEncgBnNqNgI8C8QSAw5/AX4VfwJAIAJFDQAgAEEHdCIDQUBqIgRBACgCgIAEIgUgAiADbCIGaiADIAFsaiIHIANqIghqIQkgACACQQd0IgogAUEHdGoiC2whDCAAIAtBgAFqbCENIABBBXQiDkEBIA5BAUsbIgtBYHEhDyALQQFxIRAgAa1Cf3whESAEIAdqIRIgCEF4aiETIAhBcGohFCAIQWhqIRUgCEFgaiEWIAhBWGohFyAIQVBqIRggCEFIaiEZIAhBQGohGiAHIABBCHQiG2ohHCAAIApBgAFqbCEdQQAhHkEAIR8DQEEAKAKAgAQiICADIB9saiEhAkAgAEUNAAJAAkAgDg0AQQAhIgwBCyAgIB5qISNBACEEQQAhIgNAIAcgBGoiCyAjIARqIiQoAgA2AgAgC0EEaiAkQQRqKAIANgIAIAtBCGogJEEIaigCADYCACALQQxqICRBDGooAgA2AgAgBEEQaiEEIA8gIkEEaiIiRw0ACyAQRQ0BCyAHICJBAnQiBGogISAEaigCADYCAAsCQCABRQ0AQQAhJSAdISMgBiEmA0AgBSEkIAAhIgJAAkAgAA0AIBwgGikDADcDACAcIBkpAwA3AwggHCAYKQMANwMQIBwgFykDADcDGCAcIBYpAwA3AyAgHCAVKQMANwMoIBwgFCkDADcDMCAcIBMpAwA3AzgMAQsDQCAkICZqIgQgJCAMaiILKQMANwMAIARBCGogC0EIaikDADcDACAEQRBqIAtBEGopAwA3AwAgBEEYaiALQRhqKQMANwMAIARBIGogC0EgaikDADcDACAEQShqIAtBKGopAwA3AwAgBEEwaiALQTBqKQMANwMAIARBOGogC0E4aikDADcDACAEQcAAaiALQcAAaikDADcDACAEQcgAaiALQcgAaikDADcDACAEQdAAaiALQdAAaikDADcDACAEQdgAaiALQdgAaikDADcDACAEQeAAaiALQeAAaikDADcDACAEQegAaiALQegAaikDADcDACAEQfAAaiALQfAAaikDADcDACAEQfgAaiALQfgAaikDADcDACAkQYABaiEkICJBf2oiIg0ACyAHIAggHCAAEAIgBSEkIAAhIgNAICQgI2oiBCAkIA1qIgspAwA3AwAgBEEIaiALQQhqKQMANwMAIARBEGogC0EQaikDADcDACAEQRhqIAtBGGopAwA3AwAgBEEgaiALQSBqKQMANwMAIARBKGogC0EoaikDADcDACAEQTBqIAtBMGopAwA3AwAgBEE4aiALQThqKQMANwMAIARBwABqIAtBwABqKQMANwMAIARByABqIAtByABqKQMANwMAIARB0ABqIAtB0ABqKQMANwMAIARB2ABqIAtB2ABqKQMANwMAIARB4ABqIAtB4ABqKQMANwMAIARB6ABqIAtB6ABqKQMANwMAIARB8ABqIAtB8ABqKQMANwMAIARB+ABqIAtB+ABqKQMANwMAICRBgAFqISQgIkF/aiIiDQALIAggByAcIAAQAgsgIyAbaiEjICYgG2ohJiABICVBAmoiJUsNAAtBACElA0ACQAJAIAANACAcIBopAwA3AwAgHCAZKQMANwMIIBwgGCkDADcDECAcIBcpAwA3AxggHCAWKQMANwMgIBwgFSkDADcDKCAcIBQpAwA3AzAgHCATKQMANwM4DAELIAAgCiASKQIAIBGDp0EHdGpsISYgBSEkIAAhIgNAICQgDGoiBCAEKQMAICQgJmoiCykDAIU3AwAgBEEIaiIjICMpAwAgC0EIaikDAIU3AwAgBEEQaiIjICMpAwAgC0EQaikDAIU3AwAgBEEYaiIjICMpAwAgC0EYaikDAIU3AwAgBEEgaiIjICMpAwAgC0EgaikDAIU3AwAgBEEoaiIjICMpAwAgC0EoaikDAIU3AwAgBEEwaiIjICMpAwAgC0EwaikDAIU3AwAgBEE4aiIjICMpAwAgC0E4aikDAIU3AwAgBEHAAGoiIyAjKQMAIAtBwABqKQMAhTcDACAEQcgAaiIjICMpAwAgC0HIAGopAwCFNwMAIARB0ABqIiMgIykDACALQdAAaikDAIU3AwAgBEHYAGoiIyAjKQMAIAtB2ABqKQMAhTcDACAEQeAAaiIjICMpAwAgC0HgAGopAwCFNwMAIARB6ABqIiMgIykDACALQegAaikDAIU3AwAgBEHwAGoiIyAjKQMAIAtB8ABqKQMAhTcDACAEQfgAaiIEIAQpAwAgC0H4AGopAwCFNwMAICRBgAFqISQgIkF/aiIiDQALIAcgCCAcIAAQAiAAIAogCSkCACARg6dBB3RqbCEmIAUhJCAAISIDQCAkIA1qIgQgBCkDACAkICZqIgspAwCFNwMAIARBCGoiIyAjKQMAIAtBCGopAwCFNwMAIARBEGoiIyAjKQMAIAtBEGopAwCFNwMAIARBGGoiIyAjKQMAIAtBGGopAwCFNwMAIARBIGoiIyAjKQMAIAtBIGopAwCFNwMAIARBKGoiIyAjKQMAIAtBKGopAwCFNwMAIARBMGoiIyAjKQMAIAtBMGopAwCFNwMAIARBOGoiIyAjKQMAIAtBOGopAwCFNwMAIARBwABqIiMgIykDACALQcAAaikDAIU3AwAgBEHIAGoiIyAjKQMAIAtByABqKQMAhTcDACAEQdAAaiIjICMpAwAgC0HQAGopAwCFNwMAIARB2ABqIiMgIykDACALQdgAaikDAIU3AwAgBEHgAGoiIyAjKQMAIAtB4ABqKQMAhTcDACAEQegAaiIjICMpAwAgC0HoAGopAwCFNwMAIARB8ABqIiMgIykDACALQfAAaikDAIU3AwAgBEH4AGoiBCAEKQMAIAtB+ABqKQMAhTcDACAkQYABaiEkICJBf2oiIg0ACyAIIAcgHCAAEAILIAEgJUECaiIlSw0ACwsCQCAARQ0AAkACQCAODQBBACEiDAELICAgHmohI0EAIQRBACEiA0AgIyAEaiILIAcgBGoiJCgCADYCACALQQRqICRBBGooAgA2AgAgC0EIaiAkQQhqKAIANgIAIAtBDGogJEEMaigCADYCACAEQRBqIQQgDyAiQQRqIiJHDQALIBBFDQELICEgIkECdCIEaiAHIARqKAIANgIACyAeIANqIR4gH0EBaiIfIAJHDQALCws=";
var hash$3 = "e914d656";
var wasmJson$3 = {
	name: name$3,
	data: data$3,
	hash: hash$3
};

function scryptInternal(options) {
    return __awaiter(this, void 0, void 0, function* () {
        const { costFactor, blockSize, parallelism, hashLength } = options;
        const SHA256Hasher = createSHA256();
        const blockData = yield pbkdf2({
            password: options.password,
            salt: options.salt,
            iterations: 1,
            hashLength: 128 * blockSize * parallelism,
            hashFunction: SHA256Hasher,
            outputType: "binary",
        });
        const scryptInterface = yield WASMInterface(wasmJson$3, 0);
        // last block is for storing the temporary vectors
        const VSize = 128 * blockSize * costFactor;
        const XYSize = 256 * blockSize;
        scryptInterface.setMemorySize(blockData.length + VSize + XYSize);
        scryptInterface.writeMemory(blockData, 0);
        // mix blocks
        scryptInterface.getExports().scrypt(blockSize, costFactor, parallelism);
        const expensiveSalt = scryptInterface
            .getMemory()
            .subarray(0, 128 * blockSize * parallelism);
        const outputData = yield pbkdf2({
            password: options.password,
            salt: expensiveSalt,
            iterations: 1,
            hashLength,
            hashFunction: SHA256Hasher,
            outputType: "binary",
        });
        if (options.outputType === "hex") {
            const digestChars = new Uint8Array(hashLength * 2);
            return getDigestHex(digestChars, outputData, hashLength);
        }
        // return binary format
        return outputData;
    });
}
const isPowerOfTwo = (v) => v && !(v & (v - 1));
const validateOptions$1 = (options) => {
    if (!options || typeof options !== "object") {
        throw new Error("Invalid options parameter. It requires an object.");
    }
    if (!Number.isInteger(options.blockSize) || options.blockSize < 1) {
        throw new Error("Block size should be a positive number");
    }
    if (!Number.isInteger(options.costFactor) ||
        options.costFactor < 2 ||
        !isPowerOfTwo(options.costFactor)) {
        throw new Error("Cost factor should be a power of 2, greater than 1");
    }
    if (!Number.isInteger(options.parallelism) || options.parallelism < 1) {
        throw new Error("Parallelism should be a positive number");
    }
    if (!Number.isInteger(options.hashLength) || options.hashLength < 1) {
        throw new Error("Hash length should be a positive number.");
    }
    if (options.outputType === undefined) {
        options.outputType = "hex";
    }
    if (!["hex", "binary"].includes(options.outputType)) {
        throw new Error(`Insupported output type ${options.outputType}. Valid values: ['hex', 'binary']`);
    }
};
/**
 * Calculates hash using the scrypt password-based key derivation function
 * @returns Computed hash as a hexadecimal string or as
 *          Uint8Array depending on the outputType option
 */
function scrypt(options) {
    return __awaiter(this, void 0, void 0, function* () {
        validateOptions$1(options);
        return scryptInternal(options);
    });
}

var name$2 = "bcrypt";
var data$2 = "AGFzbQEAAAABGARgAAF/YAV/f39/fwBgA39/fwBgAX8BfwMFBAABAgMFBAEBAgIGCAF/AUGAgAQLB0YFBm1lbW9yeQIAD19fc3RhY2tfcG9pbnRlcgMADkhhc2hfR2V0QnVmZmVyAAAGYmNyeXB0AAINYmNyeXB0X3ZlcmlmeQADCtVaBAYAQYCjBAvOUwQTfwF+CH8BfiMAQfAAayEFIANBADoAAiADQargADsAAAJAIAItAABBKkcNACACLQABQTBHDQAgA0ExOgABCwJAIAIsAAUgAiwABEEKbGpB8HtqIgZBBEkNACACLQAHQWBqIgdB3wBLDQAgBy0AkIEEIgdBP0sNACACLQAIQWBqIghB3wBLDQAgCC0AkIEEIghBP0sNACAFIAhBBHYgB0ECdHI6AAggAi0ACUFgaiIHQd8ASw0AIActAJCBBCIHQT9LDQAgBSAHQQJ2IAhBBHRyOgAJIAItAApBYGoiCEHfAEsNACAILQCQgQQiCEE/Sw0AIAUgCCAHQQZ0cjoACiACLQALQWBqIgdB3wBLDQAgBy0AkIEEIgdBP0sNACACLQAMQWBqIghB3wBLDQAgCC0AkIEEIghBP0sNACAFIAhBBHYgB0ECdHI6AAsgAi0ADUFgaiIHQd8ASw0AIActAJCBBCIHQT9LDQAgBSAHQQJ2IAhBBHRyOgAMIAItAA5BYGoiCEHfAEsNACAILQCQgQQiCEE/Sw0AIAUgCCAHQQZ0cjoADSACLQAPQWBqIgdB3wBLDQAgBy0AkIEEIgdBP0sNACACLQAQQWBqIghB3wBLDQAgCC0AkIEEIghBP0sNACAFIAhBBHYgB0ECdHI6AA4gAi0AEUFgaiIHQd8ASw0AIActAJCBBCIHQT9LDQAgBSAHQQJ2IAhBBHRyOgAPIAItABJBYGoiCEHfAEsNACAILQCQgQQiCEE/Sw0AIAUgCCAHQQZ0cjoAECACLQATQWBqIgdB3wBLDQAgBy0AkIEEIgdBP0sNACACLQAUQWBqIghB3wBLDQAgCC0AkIEEIghBP0sNACAFIAhBBHYgB0ECdHI6ABEgAi0AFUFgaiIHQd8ASw0AIActAJCBBCIHQT9LDQAgBSAHQQJ2IAhBBHRyOgASIAItABZBYGoiCEHfAEsNACAILQCQgQQiCEE/Sw0AIAUgCCAHQQZ0cjoAEyACLQAXQWBqIgdB3wBLDQAgBy0AkIEEIgdBP0sNACACLQAYQWBqIghB3wBLDQAgCC0AkIEEIghBP0sNACAFIAhBBHYgB0ECdHI6ABQgAi0AGUFgaiIHQd8ASw0AIActAJCBBCIHQT9LDQAgBSAHQQJ2IAhBBHRyOgAVIAItABpBYGoiCEHfAEsNACAILQCQgQQiCEE/Sw0AIAUgCCAHQQZ0cjoAFiACLQAbQWBqIgdB3wBLDQAgBy0AkIEEIgdBP0sNACACLQAcQWBqIghB3wBLDQAgCC0AkIEEIghBP0sNAEEBIAZ0IQkgBSAIQQR2IAdBAnRyOgAXIAUgBSgCCCIGQf+B/AdxQQh4IAZBGHhB/4H8B3FyIgo2AgggBSAFKAIMIgZB/4H8B3FBCHggBkEYeEH/gfwHcXIiCzYCDCAFIAUoAhAiBkH/gfwHcUEIeCAGQRh4Qf+B/AdxciIMNgIQIAUgBSgCFCIGQf+B/AdxQQh4IAZBGHhB/4H8B3FyIg02AhQgACABaiEGIAVB6ABqIAItAAJBn/8Dai0AACIOQQFxQQJ0aiEPQQAhB0EAIQhBACEQIAAhAQNAIAVCADcCaCAFIAEtAAAiETYCaCAFIAEsAAAiEjYCbCAFIBFBCHQiETYCaCAFIBEgACABQQFqIAEgBkYbIgEtAAByIhE2AmggBSASQQh0IhI2AmwgBSASIAEsAAAiE3IiEjYCbCAFIBFBCHQiETYCaCAFIBEgACABQQFqIAEgBkYbIgEtAAByIhE2AmggBSASQQh0IhI2AmwgBSASIAEsAAAiFHIiEjYCbCAFIBFBCHQiETYCaCAFIBEgACABQQFqIAEgBkYbIgEtAAByIhE2AmggBSASQQh0IhI2AmwgBSASIAEsAAAiFXIiEjYCbCAFQSBqIAdqIA8oAgAiFjYCACAHQfChBGoiFyAWIBcoAgBzNgIAIAAgAUEBaiABIAZGGyEBIBIgEXMgCHIhCCAVIBQgE3JyQYABcSAQciEQIAdBBGoiB0HIAEcNAAtBAEEAKALwoQQgEEEJdCAOQQ90cUGAgAQgCEH//wNxIAhBEHZya3FzNgLwoQRCACEYQX4hBkHwoQQhBwNAQQAoAqyiBEEAKAKoogRBACgCpKIEQQAoAqCiBEEAKAKcogRBACgCmKIEQQAoApSiBEEAKAKQogRBACgCjKIEQQAoAoiiBEEAKAKEogRBACgCgKIEQQAoAvyhBEEAKAL4oQRBACgC9KEEIAVBCGogBkECaiIGQQJxQQJ0aikDACAYhSIYQiCIp3NBACgC8KEEIBincyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQf8BcUECdCgC8JkEIQggAEEGdkH8B3EoAvCRBCEQIABBFnZB/AdxKALwgQQhESAAQQ52QfwHcSgC8IkEIRJBACgCsKIEIRNBAEEAKAK0ogQgAHM2AoCjBUEAIBMgCCAQIBEgEmpzanMgAXM2AoSjBSAHQQApA4CjBSIYNwIAIAdBCGohByAGQRBJDQALIBhCIIinIQAgGKchBkFwIQEDQEEAKAKsogRBACgCqKIEQQAoAqSiBEEAKAKgogRBACgCnKIEQQAoApiiBEEAKAKUogRBACgCkKIEQQAoAoyiBEEAKAKIogRBACgChKIEQQAoAoCiBEEAKAL8oQRBACgC+KEEIABBACgC9KEEcyAGQQAoAvChBHMgDHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgDXMiBkEWdkH8B3EoAvCBBCAGQQ52QfwHcSgC8IkEaiAGQQZ2QfwHcSgC8JEEcyAGQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgBnMiBkEWdkH8B3EoAvCBBCAGQQ52QfwHcSgC8IkEaiAGQQZ2QfwHcSgC8JEEcyAGQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgBnMiBkEWdkH8B3EoAvCBBCAGQQ52QfwHcSgC8IkEaiAGQQZ2QfwHcSgC8JEEcyAGQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgBnMiBkEWdkH8B3EoAvCBBCAGQQ52QfwHcSgC8IkEaiAGQQZ2QfwHcSgC8JEEcyAGQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgBnMiBkEWdkH8B3EoAvCBBCAGQQ52QfwHcSgC8IkEaiAGQQZ2QfwHcSgC8JEEcyAGQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgBnMiBkEWdkH8B3EoAvCBBCAGQQ52QfwHcSgC8IkEaiAGQQZ2QfwHcSgC8JEEcyAGQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgBnMiBkEWdkH8B3EoAvCBBCAGQQ52QfwHcSgC8IkEaiAGQQZ2QfwHcSgC8JEEcyAGQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgBnMiBkH/AXFBAnQoAvCZBCEHIAZBBnZB/AdxKALwkQQhCCAGQRZ2QfwHcSgC8IEEIRAgBkEOdkH8B3EoAvCJBCERQQAoArCiBCESIAFBgIIEakEAKAK0ogQgBnMiBjYCACABQYSCBGogEiAHIAggECARanNqcyAAcyIHNgIAQQAoAqyiBEEAKAKoogRBACgCpKIEQQAoAqCiBEEAKAKcogRBACgCmKIEQQAoApSiBEEAKAKQogRBACgCjKIEQQAoAoiiBEEAKAKEogRBACgCgKIEQQAoAvyhBEEAKAL4oQRBACgC9KEEIApBACgC8KEEcyAGcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyALcyAHcyIGQRZ2QfwHcSgC8IEEIAZBDnZB/AdxKALwiQRqIAZBBnZB/AdxKALwkQRzIAZB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyAGcyIGQRZ2QfwHcSgC8IEEIAZBDnZB/AdxKALwiQRqIAZBBnZB/AdxKALwkQRzIAZB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyAGcyIGQRZ2QfwHcSgC8IEEIAZBDnZB/AdxKALwiQRqIAZBBnZB/AdxKALwkQRzIAZB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyAGcyIGQRZ2QfwHcSgC8IEEIAZBDnZB/AdxKALwiQRqIAZBBnZB/AdxKALwkQRzIAZB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyAGcyIGQRZ2QfwHcSgC8IEEIAZBDnZB/AdxKALwiQRqIAZBBnZB/AdxKALwkQRzIAZB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyAGcyIGQRZ2QfwHcSgC8IEEIAZBDnZB/AdxKALwiQRqIAZBBnZB/AdxKALwkQRzIAZB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyAGcyIGQRZ2QfwHcSgC8IEEIAZBDnZB/AdxKALwiQRqIAZBBnZB/AdxKALwkQRzIAZB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyAGcyIGQf8BcUECdCgC8JkEIQcgBkEGdkH8B3EoAvCRBCEIIAZBFnZB/AdxKALwgQQhECAGQQ52QfwHcSgC8IkEIRFBACgCsKIEIRIgAUGIggRqQQAoArSiBCAGcyIGNgIAIAFBjIIEaiASIAcgCCAQIBFqc2pzIABzIgA2AgAgAUEQaiIBQewfSQ0AC0EAIAA2AoSjBUEAIAY2AoCjBSAFKAJkIRQgBSgCYCEVIAUoAlwhFiAFKAJYIRcgBSgCVCEKIAUoAlAhCyAFKAJMIQwgBSgCSCENIAUoAkQhDyAFKAJAIQ4gBSgCPCEZIAUoAjghGiAFKAI0IRsgBSgCMCEcIAUoAiwhHSAFKAIoIR4gBSgCJCEfIAUoAiAhICAFKQMQISEgBSkDCCEYA0BBAEEAKALwoQQgIHM2AvChBEEAQQAoAvShBCAfczYC9KEEQQBBACgC+KEEIB5zNgL4oQRBAEEAKAL8oQQgHXM2AvyhBEEAQQAoAoCiBCAcczYCgKIEQQBBACgChKIEIBtzNgKEogRBAEEAKAKIogQgGnM2AoiiBEEAQQAoAoyiBCAZczYCjKIEQQBBACgCkKIEIA5zNgKQogRBAEEAKAKUogQgD3M2ApSiBEEAQQAoApiiBCANczYCmKIEQQBBACgCnKIEIAxzNgKcogRBAEEAKAKgogQgC3M2AqCiBEEAQQAoAqSiBCAKczYCpKIEQQBBACgCqKIEIBdzNgKoogRBAEEAKAKsogQgFnM2AqyiBEEAQQAoArCiBCAVczYCsKIEQQBBACgCtKIEIBRzNgK0ogRBASETA0BBACEBQQBCADcDgKMFQfChBCEGQQAhAANAQQAoAqyiBEEAKAKoogRBACgCpKIEQQAoAqCiBEEAKAKcogRBACgCmKIEQQAoApSiBEEAKAKQogRBACgCjKIEQQAoAoiiBEEAKAKEogRBACgCgKIEQQAoAvyhBEEAKAL4oQRBACgC9KEEIAFzQQAoAvChBCAAcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQRZ2QfwHcSgC8IEEIABBDnZB/AdxKALwiQRqIABBBnZB/AdxKALwkQRzIABB/wFxQQJ0KALwmQRqcyABcyIBQRZ2QfwHcSgC8IEEIAFBDnZB/AdxKALwiQRqIAFBBnZB/AdxKALwkQRzIAFB/wFxQQJ0KALwmQRqcyAAcyIAQf8BcUECdCgC8JkEIQcgAEEGdkH8B3EoAvCRBCEIIABBFnZB/AdxKALwgQQhECAAQQ52QfwHcSgC8IkEIRFBACgCsKIEIRIgBkEAKAK0ogQgAHMiADYCACAGQQRqIBIgByAIIBAgEWpzanMgAXMiATYCACAGQQhqIgZBuKIESQ0AC0F4IQYDQEEAKAKsogRBACgCqKIEQQAoAqSiBEEAKAKgogRBACgCnKIEQQAoApiiBEEAKAKUogRBACgCkKIEQQAoAoyiBEEAKAKIogRBACgChKIEQQAoAoCiBEEAKAL8oQRBACgC+KEEQQAoAvShBCABc0EAKALwoQQgAHMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEH/AXFBAnQoAvCZBCEHIABBBnZB/AdxKALwkQQhCCAAQRZ2QfwHcSgC8IEEIRAgAEEOdkH8B3EoAvCJBCERQQAoArCiBCESIAZB+IEEakEAKAK0ogQgAHMiADYCACAGQfyBBGogEiAHIAggECARanNqcyABcyIBNgIAIAZBCGoiBkH0H0kNAAtBACABNgKEowVBACAANgKAowUCQCATQQFxRQ0AQQAhE0EAQQApAvChBCAYhTcC8KEEQQBBACkC+KEEICGFNwL4oQRBAEEAKQKAogQgGIU3AoCiBEEAQQApAoiiBCAhhTcCiKIEQQBBACkCkKIEIBiFNwKQogRBAEEAKQKYogQgIYU3ApiiBEEAQQApAqCiBCAYhTcCoKIEQQBBACkCqKIEICGFNwKoogRBAEEAKQKwogQgGIU3ArCiBAwBCwsgCUF/aiIJDQALQQAoArSiBCEIQQAoArCiBCEQQQAoAqyiBCERQQAoAqiiBCESQQAoAqSiBCETQQAoAqCiBCEJQQAoApyiBCEUQQAoApiiBCEVQQAoApSiBCEWQQAoApCiBCEXQQAoAoyiBCEKQQAoAoiiBCELQQAoAoSiBCEMQQAoAoCiBCENQQAoAvyhBCEPQQAoAvihBCEOQQAoAvShBCEZQQAoAvChBCEaQQAhGwNAIBtBAnQiHCkDoIAEIhinIQEgGEIgiKchBkFAIQcDQCAQIBEgEiATIAkgFCAVIBYgFyAKIAsgDCANIA8gDiAGIBlzIAEgGnMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMiAUEWdkH8B3EoAvCBBCABQQ52QfwHcSgC8IkEaiABQQZ2QfwHcSgC8JEEcyABQf8BcUECdCgC8JkEanMgAHMiAEEWdkH8B3EoAvCBBCAAQQ52QfwHcSgC8IkEaiAAQQZ2QfwHcSgC8JEEcyAAQf8BcUECdCgC8JkEanMgAXMhBiAAIAhzIQEgB0EBaiIHDQALQQAgBjYChKMFQQAgATYCgKMFIAVBCGogHGpBACkDgKMFNwMAIBtBBEkhASAbQQJqIRsgAQ0ACyADIAIoAgA2AgAgAyACKAIENgIEIAMgAigCCDYCCCADIAIoAgw2AgwgAyACKAIQNgIQIAMgAigCFDYCFCADIAIoAhg2AhggAyACLAAcQfCABGotAABBMHFBwIAEai0AADoAHCAFIAUoAggiAkH/gfwHcUEIeCACQRh4Qf+B/AdxciICNgIIIAUgBSgCDCIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyIgE2AgwgBSAFKAIQIgBB/4H8B3FBCHggAEEYeEH/gfwHcXIiADYCECAFIAUoAhQiBkH/gfwHcUEIeCAGQRh4Qf+B/AdxciIGNgIUIAUgBSgCGCIHQf+B/AdxQQh4IAdBGHhB/4H8B3FyIgc2AhggBSAFKAIcIghB/4H8B3FBCHggCEEYeEH/gfwHcXIiCDYCHAJAAkAgBA0AIAMgBSkDCDcDACADIAUpAxA3AwggAyAFKQMYNwMQDAELIAMgCEE/cS0AwIAEOgA4IAMgBkEadi0AwIAEOgAxIAMgAEE/cS0AwIAEOgAoIAMgAkEadi0AwIAEOgAhIAMgCEEOdkE8cS0AwIAEOgA7IAMgCEEKdkE/cS0AwIAEOgA5IAMgB0ESdkE/cS0AwIAEOgA1IAMgB0EIdkE/cS0AwIAEOgA0IAMgBkEQdkE/cS0AwIAEOgAwIAMgAEEYdkE/cS0AwIAEOgAsIAMgAEEKdkE/cS0AwIAEOgApIAMgAUESdkE/cS0AwIAEOgAlIAMgAUEIdkE/cS0AwIAEOgAkIAMgAkEQdkE/cS0AwIAEOgAgIAMgCEEEdkEwcSAIQRR2QQ9xci0AwIAEOgA6IAMgB0EWdkE8cSAIQQZ2QQNxci0AwIAEOgA3IAMgB0EMdkEwcSAHQRx2ci0AwIAEOgA2IAMgBkEGdkE8cSAGQRZ2QQNxci0AwIAEOgAvIAMgBkH8AXFBAnZBwIAEai0AADoALSADIABBDnZBPHEgAEEednItAMCABDoAKyADIABBBHZBMHEgAEEUdkEPcXItAMCABDoAKiADIAFBFnZBPHEgAEEGdkEDcXItAMCABDoAJyADIAFBDHZBMHEgAUEcdnItAMCABDoAJiADIAJBBnZBPHEgAkEWdkEDcXItAMCABDoAHyADIAJB/AFxQQJ2QcCABGotAAA6AB0gAyAHQQJ0QTxxIAdBDnZBA3FyQcCABGotAAA6ADMgAyAGQRR2QTBxIAdB8AFxQQR2ckHAgARqLQAAOgAyIAMgBkEEdEEwcSAGQQx2QQ9xckHAgARqLQAAOgAuIAMgAUECdEE8cSABQQ52QQNxckHAgARqLQAAOgAjIAMgAkEUdkEwcSABQfABcUEEdnJBwIAEai0AADoAIiADIAJBBHRBMHEgAkEMdkEPcXJBwIAEai0AADoAHgsgA0EAOgA8CwvwBQEHfyMAQeAAayIDJABBACEEIABBADoAkKMEIANBJDoARiADIAFBCm4iBUEwajoARCADQaTkhKMCNgJAIANBAC0AgKMEIgZBAnYtAMCABDoARyADQQAtAIKjBCIHQT9xLQDAgAQ6AEogA0EALQCDowQiCEECdi0AwIAEOgBLIANBAC0AhaMEIglBP3EtAMCABDoATiADIAVB9gFsIAFqQTByOgBFIAMgBkEEdEEwcUEALQCBowQiAUEEdnItAMCABDoASCADIAFBAnRBPHEgB0EGdnItAMCABDoASSADIAhBBHRBMHFBAC0AhKMEIgFBBHZyLQDAgAQ6AEwgAyABQQJ0QTxxIAlBBnZyLQDAgAQ6AE0gA0EALQCGowQiAUECdi0AwIAEOgBPIANBAC0AiKMEIgVBP3EtAMCABDoAUiADQQAtAImjBCIGQQJ2LQDAgAQ6AFMgA0EALQCLowQiB0E/cS0AwIAEOgBWIANBAC0AjKMEIghBAnYtAMCABDoAVyADIAFBBHRBMHFBAC0Ah6MEIgFBBHZyLQDAgAQ6AFAgAyABQQJ0QTxxIAVBBnZyLQDAgAQ6AFEgAyAGQQR0QTBxQQAtAIqjBCIBQQR2ci0AwIAEOgBUIAMgAUECdEE8cSAHQQZ2ci0AwIAEOgBVIAMgCEEEdEEwcUEALQCNowQiAUEEdnItAMCABDoAWCADQQA6AF0gA0EALQCOowQiBUE/cS0AwIAEOgBaIANBAC0Aj6MEIgZBAnYtAMCABDoAWyADIAFBAnRBPHEgBUEGdnItAMCABDoAWSADIAZBBHRBMHEtAMCABDoAXEGQowQgACADQcAAaiADIAIQAQNAIARBgKMEaiADIARqIgAtAAA6AAAgBEGBowRqIABBAWotAAA6AAAgBEGCowRqIABBAmotAAA6AAAgBEGDowRqIABBA2otAAA6AAAgBEGEowRqIABBBGotAAA6AAAgBEEFaiIEQTxHDQALIANB4ABqJAALiQECAX8IfiMAQcAAayIBJAAgAEEAOgC8owRBvKMEIABBgKMEIAFBARABQQApA6SjBCECIAEpAyQhA0EAKQOcowQhBCABKQMcIQVBACkDrKMEIQYgASkDLCEHQQApA7SjBCEIIAEpAzQhCSABQcAAaiQAIAUgBFIgAyACUmogByAGUmogCSAIUnJFCwvJIgIAQYCABAvwAQIEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQQAAAAAAAAAaHByT0JuYWVsb2hlU3JlZER5cmN0YnVvAAAAAAAAAAAuL0FCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaYWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXowMTIzNDU2Nzg5AAAAAAAAAAAAAAAAAAAAAEBAQEBAQEBAQEBAQEBAAAE2Nzg5Ojs8PT4/QEBAQEBAQAIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobQEBAQEBAHB0eHyAhIiMkJSYnKCkqKywtLi8wMTIzNDVAQEBAQABB8IEEC8ggpgsx0ay135jbcv0vt98a0O2v4biWfiZqRZB8upl/LPFHmaEk92yRs+LyAQgW/I6F2CBpY2lOV3Gj/likfj2T9I90lQ1Yto5yWM2Lce5KFYIdpFR7tVlawjnVMJwTYPIqI7DRxfCFYCgYeUHK7zjbuLDceY4OGDpgiw6ebD6KHrDBdxXXJ0sxvdovr3hgXGBV8yVV5pSrVapimEhXQBToY2o5ylW2EKsqNFzMtM7oQRGvhlShk+lyfBEU7rMqvG9jXcWpK/YxGHQWPlzOHpOHmzO61q9czyRsgVMyeneGlSiYSI87r7lLaxvov8STIShmzAnYYZGpIftgrHxIMoDsXV1dhO+xdYXpAiMm3IgbZeuBPokjxayW0/NvbQ85QvSDgkQLLgQghKRK8MhpXpsfnkJoxiGabOn2YZwMZ/CI06vSoFFqaC9U2CinD5ajM1GrbAvvbuQ7ehNQ8Du6mCr7fh1l8aF2Aa85PlnKZogOQ4IZhu6MtJ9vRcOlhH2+Xos72HVv4HMgwYWfRBpApmrBVmKq004Gdz82ct/+Gz0Cm0Ik19A3SBIK0NPqD9ubwPFJyXJTB3sbmYDYedQl997o9hpQ/uM7THm2veBsl7oGwAS2T6nBxGCfQMKeXF5jJGoZr2/7aLVTbD7rsjkTb+xSOx9R/G0slTCbREWBzAm9Xq8E0OO+/Uoz3gcoD2azSy4ZV6jLwA90yEU5XwvS2/vTub3AeVUKMmAaxgCh1nlyLED+JZ9nzKMf+/jppY74IjLb3xZ1PBVrYf3IHlAvq1IFrfq1PTJghyP9SHsxU4LfAD67V1yeoIxvyi5WhxrbaRff9qhC1cP/fijGMmesc1VPjLAnW2nIWMq7XaP/4aAR8LiYPfoQuIMh/Wy1/Epb09EteeRTmmVF+La8SY7SkJf7S9ry3eEzfsukQRP7YujG5M7ayiDvAUx3Nv6eftC0H/ErTdrblZiRkK5xjq3qoNWTa9DRjtDgJcevL1s8jreUdY774vaPZCsS8hK4iIgc8A2QoF6tTxzDj2iR8c/RrcGosxgiLy93Fw6+/i116qEfAosPzKDl6HRvtdbzrBiZ4onO4E+otLfgE/2BO8R82ait0maiXxYFd5WAFHPMk3cUGiFlIK3mhvq1d/VCVMfPNZ37DK/N66CJPnvTG0HWSX4eri0OJQBes3EguwBoIq/guFebNmQkHrkJ8B2RY1Wqpt9ZiUPBeH9TWtmiW30gxbnlAnYDJoOpz5ViaBnIEUFKc07KLUezSqkUe1IAURsVKVOaP1cP1uTGm7x2pGArAHTmgbVvuggf6RtXa+yW8hXZDSohZWO2tvm55y4FNP9kVoXFXS2wU6GPn6mZR7oIageFbulwektEKbO1Lgl12yMmGcSwpm6tfd+nSbhg7pxmsu2PcYyq7P8XmmlsUmRW4Z6xwqUCNhkpTAl1QBNZoD46GOSamFQ/ZZ1CW9bkj2vWP/eZB5zSofUw6O/mOC1NwV0l8IYg3Uwm63CExumCY17MHgI/a2gJye+6PhQYlzyhcGprhDV/aIbioFIFU5y3NwdQqhyEBz5crt5/7ER9jrjyFlc32jqwDQxQ8AQfHPD/swACGvUMrrJ0tTxYeoMlvSEJ3PkTkdH2L6l8c0cylAFH9SKB5eU63NrCNzR2tcin3fOaRmFEqQ4D0A8+x8jsQR51pJnNOOIvDuo7obuAMjGzPhg4i1ROCLltTwMNQm+/BAr2kBK4LHl8lyRysHlWr4mvvB93mt4QCJPZEq6Lsy4/z9wfchJVJHFrLubdGlCHzYSfGEdYehfaCHS8mp+8jH1L6Trseuz6HYXbZkMJY9LDZMRHGBzvCNkVMjc7Q90WusIkQ02hElHEZSoCAJRQ3eQ6E57433FVTjEQ1nesgZsZEV/xVjUEa8ej1zsYETwJpSRZ7eaP8vr78Zcsv7qebjwVHnBF44axb+nqCl4OhrMqPloc5x93+gY9TrncZSkPHeeZ1ok+gCXIZlJ4yUwuarMQnLoOFcZ46uKUUzz8pfQtCh6nTvfyPSsdNg8mORlgecIZCKcjUrYSE/du/q3rZh/D6pVFvOODyHum0Td/sSj/jAHv3TLDpVpsvoUhWGUCmKtoD6XO7juVL9utfe8qhC9uWyi2IRVwYQcpdUfd7BAVn2EwqMwTlr1h6x7+NAPPYwOqkFxztTmicEwLnp7VFN6qy7yGzO6nLGJgq1yrnG6E87KvHotkyvC9GblpI6BQu1plMlpoQLO0KjzV6Z4x97ghwBkLVJuZoF+Hfpn3lah9PWKaiDf4dy3jl1+T7RGBEmgWKYg1DtYf5seh396WmbpYeKWE9VdjciIb/8ODm5ZGwhrrCrPNVDAuU+RI2Y8oMbxt7/LrWOr/xjRh7Sj+czx87tkUSl3jt2ToFF0QQuATPiC24u5F6quqoxVPbNvQT8v6QvRCx7W7au8dO09lBSHNQZ55HtjHTYWGakdL5FBigT3yoWLPRiaNW6CDiPyjtsfBwyQVf5J0y2kLioRHhbKSVgC/WwmdSBmtdLFiFAAOgiMqjUJY6vVVDD70rR1hcD8jkvByM0F+k43x7F/W2zsibFk33nxgdO7Lp/KFQG4yd86EgAemnlD4GVXY7+g1l9lhqqdpqcIGDMX8qwRa3MoLgC56RJ6ENEXDBWfV/cmeHg7T23PbzYhVEHnaX2dAQ2fjZTTExdg4PnGe+Cg9IP9t8echPhVKPbCPK5/j5vetg9toWj3p90CBlBwmTPY0KWmU9yAVQffUAnYua/S8aACi1HEkCNRq9CAzt9S3Q69hAFAu9jkeRkUkl3RPIRRAiIu/HfyVTa+RtZbT3fRwRS+gZuwJvL+Fl70D0G2sfwSFyzGzJ+uWQTn9VeZHJdqaCsqrJXhQKPQpBFPahiwK+2226WIU3GgAaUjXpMAOaO6NoSei/j9PjK2H6AbgjLW21vR6fB7OquxfN9OZo3jOQiprQDWe/iC5hfPZq9c57otOEjv3+skdVhhtSzFmoyayl+PqdPpuOjJDW93350Fo+yB4yk71CvuXs/7YrFZARSeVSLo6OlNVh42DILepa/5LlZbQvGeoVViaFaFjKanMM9vhmVZKKqb5JTE/HH70XnwxKZAC6Pj9cC8nBFwVu4DjLCgFSBXBlSJtxuQ/E8FI3IYPx+7J+QcPHwRBpHlHQBduiF3rUV8y0cCb1Y/BvPJkNRFBNHh7JWCcKmCj6PjfG2xjH8K0Eg6eMuEC0U9mrxWB0crglSNr4ZI+M2ILJDsiub7uDqKyhZkNuuaMDHLeKPeiLUV4EtD9lLeVYgh9ZPD1zOdvo0lU+kh9hyf9ncMejT7zQWNHCnT/Lpmrbm86N/349GDcEqj43euhTOEbmQ1rbtsQVXvGNyxnbTvUZScE6NDcxw0p8aP/AMySDzm1C+0Pafufe2acfdvOC8+RoKNeFdmILxO7JK1bUb95lHvr1jt2sy45N3lZEcyX4iaALTEu9KetQmg7K2rGzEx1EhzxLng3QhJq51GSt+a7oQZQY/tLGBBrGvrtyhHYvSU9ycPh4lkWQkSGExIKbuwM2Srqq9VOZ69kX6iG2ojpv77+w+RkV4C8nYbA9/D4e3hgTWADYEaD/dGwHzj2BK5Fd8z8Ntcza0KDcase8IdBgLBfXgA8vlegdySu6L2ZQkZVYS5Yv4/0WE6i/d3yOO909MK9iYfD+WZTdI6zyFXydbS52fxGYSbreoTfHYt5DmqE4pVfkY5ZbkZwV7QgkVXVjEzeAsnhrAu50AWCu0hiqBGeqXR1thl/twncqeChCS1mM0YyxAIfWuiMvvAJJaCZShD+bh0dPbka36SlCw/yhqFp8Wgog9q33P4GOVebzuKhUn/NTwFeEVD6gwanxLUCoCfQ5g0njPiaQYY/dwZMYMO1BqhhKHoX8OCG9cCqWGAAYn3cMNee5hFj6jgjlN3CUzQWwsJW7su73ra8kKF9/Ot2HVnOCeQFb4gBfEs9CnI5JHySfF9y44a5nU1ytFvBGvy4ntN4VVTttaX8CNN8PdjED61NXu9QHvjmYbHZFIWiPBNRbOfH1W/ETuFWzr8qNjfIxt00MprXEoJjko76DmfgAGBAN845Os/1+tM3d8KrGy3FWp5nsFxCN6NPQCeC076bvJmdjhHVFXMPv34cLdZ7xADHaxuMt0WQoSG+sW6ytG42ai+rSFd5bpS80najxsjCSWXu+A9Tfd6NRh0Kc9XGTdBM27s5KVBGuqnoJpWsBONevvDV+qGaUS1q4ozvYyLuhpq4wonA9i4kQ6oDHqWk0PKcumHAg01q6ZtQFeWP1ltkuvmiJijhOjqnhpWpS+liVe/T7y/H2vdS92lvBD9ZCvp3FankgAGGsIet5gmbk+U+O1r9kOmX1zSe2bfwLFGLKwI6rNWWfaZ9AdY+z9EoLX18zyWfH5u48q1ytNZaTPWIWnGsKeDmpRng/aywR5v6k+2NxNPozFc7KClm1fgoLhN5kQFfeFVgde1EDpb3jF7T49RtBRW6bfSIJWGhA73wZAUVnuvDoleQPOwaJ5cqBzqpm20/G/UhYx77Zpz1GfPcJijZM3X1/VWxgjRWA7s8uooRd1Eo+NkKwmdRzKtfkq3MURfoTY7cMDhiWJ03kfkgk8KQeurOez77ZM4hUTK+T3d+47aoRj0pw2lT3kiA5hNkEAiuoiSybd39LYVpZiEHCQpGmrPdwEVkz95sWK7IIBzd975bQI1YG38B0sy747Rrfmqi3UX/WTpECjU+1c20vKjO6nK7hGT6rhJmjUdvPL9j5JvSnl0vVBt3wq5wY072jQ0OdFcTW+dxFnL4XX1TrwjLQEDM4rROakbSNISvFQEoBLDhHTqYlbSfuAZIoG7Ogjs/b4KrIDVLHRoB+CdyJ7FgFWHcP5PnK3k6u70lRTThOYigS3nOUbfJMi/Juh+gfsgc4PbRx7zDEQHPx6rooUmHkBqavU/Uy97a0DjaCtUqwzkDZzaRxnwx+Y1PK7Hgt1me9zq79UP/GdXynEXZJywil78q/OYVcfyRDyUVlJthk+X665y2zllkqMLRqLoSXgfBtgxqBeNlUNIQQqQDyw5u7OA725gWvqCYTGTpeDIylR+f35LT4Cs0oNMe8nGJQXQKG4w0o0sgcb7F2DJ2w42fNd8uL5mbR28L5h3x4w9U2kzlkdjaHs95Ys5vfj7NZrEYFgUdLP3F0o+EmSL79lfzI/UjdjKmMTWokwLNzFZigfCstet1Wpc2Fm7Mc9KIkmKW3tBJuYEbkFBMFFbGcb3HxuYKFHoyBtDhRZp78sP9U6rJAA+oYuK/Jbv20r01BWkScSICBLJ8z8u2K5x2zcA+EVPT40AWYL2rOPCtRyWcIDi6ds5G98Whr3dgYHUgTv7LhdiN6Iqw+ap6fqr5TFzCSBmMivsC5GrDAfnh69Zp+NSQoN5cpi0lCT+f5gjCMmFOt1vid87j349X5nLDOohqPyTTCKOFLooZE0RzcAMiOAmk0DGfKZj6LgiJbE7s5iEoRXcT0DjPZlS+bAzpNLcprMDdUHzJtdWEPxcJR7XZ1RaSG/t5iQ==";
var hash$2 = "ec6063c3";
var wasmJson$2 = {
	name: name$2,
	data: data$2,
	hash: hash$2
};

function bcryptInternal(options) {
    return __awaiter(this, void 0, void 0, function* () {
        const { costFactor, password, salt } = options;
        const bcryptInterface = yield WASMInterface(wasmJson$2, 0);
        bcryptInterface.writeMemory(getUInt8Buffer(salt), 0);
        const passwordBuffer = getUInt8Buffer(password);
        bcryptInterface.writeMemory(passwordBuffer, 16);
        const shouldEncode = options.outputType === "encoded" ? 1 : 0;
        bcryptInterface
            .getExports()
            .bcrypt(passwordBuffer.length, costFactor, shouldEncode);
        const memory = bcryptInterface.getMemory();
        if (options.outputType === "encoded") {
            return intArrayToString(memory, 60);
        }
        if (options.outputType === "hex") {
            const digestChars = new Uint8Array(24 * 2);
            return getDigestHex(digestChars, memory, 24);
        }
        // return binary format
        // the data is copied to allow GC of the original memory buffer
        return memory.slice(0, 24);
    });
}
const validateOptions = (options) => {
    if (!options || typeof options !== "object") {
        throw new Error("Invalid options parameter. It requires an object.");
    }
    if (!Number.isInteger(options.costFactor) ||
        options.costFactor < 4 ||
        options.costFactor > 31) {
        throw new Error("Cost factor should be a number between 4 and 31");
    }
    options.password = getUInt8Buffer(options.password);
    if (options.password.length < 1) {
        throw new Error("Password should be at least 1 byte long");
    }
    if (options.password.length > 72) {
        throw new Error("Password should be at most 72 bytes long");
    }
    options.salt = getUInt8Buffer(options.salt);
    if (options.salt.length !== 16) {
        throw new Error("Salt should be 16 bytes long");
    }
    if (options.outputType === undefined) {
        options.outputType = "encoded";
    }
    if (!["hex", "binary", "encoded"].includes(options.outputType)) {
        throw new Error(`Insupported output type ${options.outputType}. Valid values: ['hex', 'binary', 'encoded']`);
    }
};
/**
 * Calculates hash using the bcrypt password-hashing function
 * @returns Computed hash
 */
function bcrypt(options) {
    return __awaiter(this, void 0, void 0, function* () {
        validateOptions(options);
        return bcryptInternal(options);
    });
}
const validateHashCharacters = (hash) => {
    if (!/^\$2[axyb]\$[0-3][0-9]\$[./A-Za-z0-9]{53}$/.test(hash)) {
        return false;
    }
    if (hash[4] === "0" && Number(hash[5]) < 4) {
        return false;
    }
    if (hash[4] === "3" && Number(hash[5]) > 1) {
        return false;
    }
    return true;
};
const validateVerifyOptions = (options) => {
    if (!options || typeof options !== "object") {
        throw new Error("Invalid options parameter. It requires an object.");
    }
    if (options.hash === undefined || typeof options.hash !== "string") {
        throw new Error("Hash should be specified");
    }
    if (options.hash.length !== 60) {
        throw new Error("Hash should be 60 bytes long");
    }
    if (!validateHashCharacters(options.hash)) {
        throw new Error("Invalid hash");
    }
    options.password = getUInt8Buffer(options.password);
    if (options.password.length < 1) {
        throw new Error("Password should be at least 1 byte long");
    }
    if (options.password.length > 72) {
        throw new Error("Password should be at most 72 bytes long");
    }
};
/**
 * Verifies password using bcrypt password-hashing function
 * @returns True if the encoded hash matches the password
 */
function bcryptVerify(options) {
    return __awaiter(this, void 0, void 0, function* () {
        validateVerifyOptions(options);
        const { hash, password } = options;
        const bcryptInterface = yield WASMInterface(wasmJson$2, 0);
        bcryptInterface.writeMemory(getUInt8Buffer(hash), 0);
        const passwordBuffer = getUInt8Buffer(password);
        bcryptInterface.writeMemory(passwordBuffer, 60);
        return !!bcryptInterface.getExports().bcrypt_verify(passwordBuffer.length);
    });
}

var name$1 = "whirlpool";
var data$1 = "AGFzbQEAAAABEQRgAAF/YAF/AGACf38AYAAAAwkIAAECAwEDAAEFBAEBAgIGDwJ/AUGAgAQLfwBBgIAECweCAQkGbWVtb3J5AgAPX19zdGFja19wb2ludGVyAwAOSGFzaF9HZXRCdWZmZXIAAAlIYXNoX0luaXQAAwtIYXNoX1VwZGF0ZQAECkhhc2hfRmluYWwABQ1IYXNoX0dldFN0YXRlAAYOSGFzaF9DYWxjdWxhdGUABwpTVEFURV9TSVpFAwEK3hoIBgBBgJEEC8wGAQl+IAApAwAhAUEAQQApA4CTBSICNwPAkQUgACkDGCEDIAApAxAhBCAAKQMIIQVBAEEAKQOYkwUiBjcD2JEFQQBBACkDkJMFIgc3A9CRBUEAQQApA4iTBSIINwPIkQVBACABIAKFNwOAkgVBACAFIAiFNwOIkgVBACAEIAeFNwOQkgVBACADIAaFNwOYkgUgACkDICEDQQBBACkDoJMFIgE3A+CRBUEAIAMgAYU3A6CSBSAAKQMoIQRBAEEAKQOokwUiAzcD6JEFQQAgBCADhTcDqJIFIAApAzAhBUEAQQApA7CTBSIENwPwkQVBACAFIASFNwOwkgUgACkDOCEJQQBBACkDuJMFIgU3A/iRBUEAIAkgBYU3A7iSBUEAQpjGmMb+kO6AzwA3A4CRBUHAkQVBgJEFEAJBgJIFQcCRBRACQQBCtszKrp/v28jSADcDgJEFQcCRBUGAkQUQAkGAkgVBwJEFEAJBAELg+O70uJTDvTU3A4CRBUHAkQVBgJEFEAJBgJIFQcCRBRACQQBCncDfluzlkv/XADcDgJEFQcCRBUGAkQUQAkGAkgVBwJEFEAJBAEKV7t2p/pO8pVo3A4CRBUHAkQVBgJEFEAJBgJIFQcCRBRACQQBC2JKn0ZCW6LWFfzcDgJEFQcCRBUGAkQUQAkGAkgVBwJEFEAJBAEK9u8Ggv9nPgucANwOAkQVBwJEFQYCRBRACQYCSBUHAkQUQAkEAQuTPhNr4tN/KWDcDgJEFQcCRBUGAkQUQAkGAkgVBwJEFEAJBAEL73fOz1vvFo55/NwOAkQVBwJEFQYCRBRACQYCSBUHAkQUQAkEAQsrb/L3Q1dbBMzcDgJEFQcCRBUGAkQUQAkGAkgVBwJEFEAJBACACQQApA4CSBSAAKQMAhYU3A4CTBUEAIAhBACkDiJIFIAApAwiFhTcDiJMFQQAgB0EAKQOQkgUgACkDEIWFNwOQkwVBACAGQQApA5iSBSAAKQMYhYU3A5iTBUEAIAFBACkDoJIFIAApAyCFhTcDoJMFQQAgA0EAKQOokgUgACkDKIWFNwOokwVBACAEQQApA7CSBSAAKQMwhYU3A7CTBUEAIAVBACkDuJIFIAApAziFhTcDuJMFC4YLCgF+AX8BfgF/AX4BfwF+AX8EfgN/IAAgACkDACICpyIDQf8BcUEDdCkDkIAEQjiJIAApAzgiBKciBUEFdkH4D3EpA5CABIVCOIkgACkDMCIGpyIHQQ12QfgPcSkDkIAEhUI4iSAAKQMoIginIglBFXZB+A9xKQOQgASFQjiJIAApAyAiCkIgiKdB/wFxQQN0KQOQgASFQjiJIAApAxgiC0IoiKdB/wFxQQN0KQOQgASFQjiJIAApAxAiDEIwiKdB/wFxQQN0KQOQgASFQjiJIAApAwgiDUI4iKdBA3QpA5CABIVCOIkgASkDAIU3AwAgACANpyIOQf8BcUEDdCkDkIAEQjiJIANBBXZB+A9xKQOQgASFQjiJIAVBDXZB+A9xKQOQgASFQjiJIAdBFXZB+A9xKQOQgASFQjiJIAhCIIinQf8BcUEDdCkDkIAEhUI4iSAKQiiIp0H/AXFBA3QpA5CABIVCOIkgC0IwiKdB/wFxQQN0KQOQgASFQjiJIAxCOIinQQN0KQOQgASFQjiJIAEpAwiFNwMIIAAgDKciD0H/AXFBA3QpA5CABEI4iSAOQQV2QfgPcSkDkIAEhUI4iSADQQ12QfgPcSkDkIAEhUI4iSAFQRV2QfgPcSkDkIAEhUI4iSAGQiCIp0H/AXFBA3QpA5CABIVCOIkgCEIoiKdB/wFxQQN0KQOQgASFQjiJIApCMIinQf8BcUEDdCkDkIAEhUI4iSALQjiIp0EDdCkDkIAEhUI4iSABKQMQhTcDECAAIAunIhBB/wFxQQN0KQOQgARCOIkgD0EFdkH4D3EpA5CABIVCOIkgDkENdkH4D3EpA5CABIVCOIkgA0EVdkH4D3EpA5CABIVCOIkgBEIgiKdB/wFxQQN0KQOQgASFQjiJIAZCKIinQf8BcUEDdCkDkIAEhUI4iSAIQjCIp0H/AXFBA3QpA5CABIVCOIkgCkI4iKdBA3QpA5CABIVCOIkgASkDGIU3AxggACAKpyIDQf8BcUEDdCkDkIAEQjiJIBBBBXZB+A9xKQOQgASFQjiJIA9BDXZB+A9xKQOQgASFQjiJIA5BFXZB+A9xKQOQgASFQjiJIAJCIIinQf8BcUEDdCkDkIAEhUI4iSAEQiiIp0H/AXFBA3QpA5CABIVCOIkgBkIwiKdB/wFxQQN0KQOQgASFQjiJIAhCOIinQQN0KQOQgASFQjiJIAEpAyCFNwMgIAAgCUH/AXFBA3QpA5CABEI4iSADQQV2QfgPcSkDkIAEhUI4iSAQQQ12QfgPcSkDkIAEhUI4iSAPQRV2QfgPcSkDkIAEhUI4iSANQiCIp0H/AXFBA3QpA5CABIVCOIkgAkIoiKdB/wFxQQN0KQOQgASFQjiJIARCMIinQf8BcUEDdCkDkIAEhUI4iSAGQjiIp0EDdCkDkIAEhUI4iSABKQMohTcDKCAAIAdB/wFxQQN0KQOQgARCOIkgCUEFdkH4D3EpA5CABIVCOIkgA0ENdkH4D3EpA5CABIVCOIkgEEEVdkH4D3EpA5CABIVCOIkgDEIgiKdB/wFxQQN0KQOQgASFQjiJIA1CKIinQf8BcUEDdCkDkIAEhUI4iSACQjCIp0H/AXFBA3QpA5CABIVCOIkgBEI4iKdBA3QpA5CABIVCOIkgASkDMIU3AzAgACAFQf8BcUEDdCkDkIAEQjiJIAdBBXZB+A9xKQOQgASFQjiJIAlBDXZB+A9xKQOQgASFQjiJIANBFXZB+A9xKQOQgASFQjiJIAtCIIinQf8BcUEDdCkDkIAEhUI4iSAMQiiIp0H/AXFBA3QpA5CABIVCOIkgDUIwiKdB/wFxQQN0KQOQgASFQjiJIAJCOIinQQN0KQOQgASFQjiJIAEpAziFNwM4C1wAQQBCADcDyJMFQQBCADcDuJMFQQBCADcDsJMFQQBCADcDqJMFQQBCADcDoJMFQQBCADcDmJMFQQBCADcDkJMFQQBCADcDiJMFQQBCADcDgJMFQQBBADYCwJMFC8ADAQd/QQAhAUEAQQApA8iTBSAArXw3A8iTBQJAQQAoAsCTBSICRQ0AQQAhAQJAIAIgAGoiA0HAACADQcAASRsiBCACQf8BcSIFTQ0AIAQgBWsiBkEDcSEHQQAhAQJAIAUgBGtBfEsNACAGQfwAcSEGQQAhAQNAIAUgAWoiAkHAkgVqIAFBgJEEai0AADoAACACQcGSBWogAUGBkQRqLQAAOgAAIAJBwpIFaiABQYKRBGotAAA6AAAgAkHDkgVqIAFBg5EEai0AADoAACAGIAFBBGoiAUcNAAsgB0UNASAFIAFqIgUhAgsgAkH/AXFBAWohAgNAIAUgAUGAkQRqLQAAOgDAkgUgAiIFQQFqIQIgAUEBaiEBIAdBf2oiBw0ACwsCQCADQT9NDQBBwJIFEAFBACEEC0EAIAQ2AsCTBQsCQCAAIAFrIgVBwABJDQADQCABQYCRBGoQASABQcAAaiEBIAVBQGoiBUE/Sw0ACwsCQCAAIAFGDQBBACAFNgLAkwUgBUUNACABQYCRBGohAkEAIQFBACEFA0AgASACIAFqLQAAOgDAkgVBACgCwJMFIAVBAWoiBUH/AXEiAUsNAAsLC/UDAgR/AX4jAEHAAGsiACQAIABCADcDOCAAQgA3AzAgAEIANwMoIABCADcDICAAQgA3AxggAEIANwMQIABCADcDCCAAQgA3AwBBACEBAkACQEEAKALAkwUiAkUNAEEAIQMDQCAAIANqIANBwJIFai0AADoAACADQQFqIQMgAiABQQFqIgFB/wFxSw0AC0EAIAJBAWo2AsCTBSAAIAJqQYABOgAAIAJBYHFBIEcNASAAEAEgAEIANwMYIABCADcDECAAQgA3AwggAEIANwMADAELQQBBATYCwJMFIABBgAE6AAALQQApA8iTBSEEQQBCADcDyJMFIABBADoANiAAQQA2ATIgAEIANwEqIABBADoAKSAAQgA3ACEgAEEAOgAgIAAgBEIFiDwAPiAAIARCDYg8AD0gACAEQhWIPAA8IAAgBEIdiDwAOyAAIARCJYg8ADogACAEQi2IPAA5IAAgBEI1iDwAOCAAIARCPYg8ADcgACAEp0EDdDoAPyAAEAFBAEEAKQOAkwU3A4CRBEEAQQApA4iTBTcDiJEEQQBBACkDkJMFNwOQkQRBAEEAKQOYkwU3A5iRBEEAQQApA6CTBTcDoJEEQQBBACkDqJMFNwOokQRBAEEAKQOwkwU3A7CRBEEAQQApA7iTBTcDuJEEIABBwABqJAALBgBBwJIFC2IAQQBCADcDyJMFQQBCADcDuJMFQQBCADcDsJMFQQBCADcDqJMFQQBCADcDoJMFQQBCADcDmJMFQQBCADcDkJMFQQBCADcDiJMFQQBCADcDgJMFQQBBADYCwJMFIAAQBBAFCwuZEAEAQYCABAuQEJAAAAAAAAAAAAAAAAAAAAAYGGAYwHgw2CMjjCMFr0YmxsY/xn75kbjo6IfoE2/N+4eHJodMoRPLuLjauKlibREBAQQBCAUCCU9PIU9Cbp4NNjbYNq3ubJumpqKmWQRR/9LSb9LevbkM9fXz9fsG9w55efl574Dylm9voW9fzt4wkZF+kfzvP21SUlVSqgek+GBgnWAn/cBHvLzKvIl2ZTWbm1abrM0rN46OAo4EjAGKo6O2o3EVW9IMDDAMYDwYbHt78Xv/ivaENTXUNbXhaoAdHXQd6Gk69eDgp+BTR92z19d71/assyHCwi/CXu2ZnC4uuC5tllxDS0sxS2J6lin+/t/+oyHhXVdXQVeCFq7VFRVUFahBKr13d8F3n7bu6Dc33Del626S5eWz5XtW156fn0afjNkjE/Dw5/DTF/0jSko1Smp/lCDa2k/anpWpRFhYfVj6JbCiyckDyQbKj88pKaQpVY1SfAoKKApQIhRasbH+seFPf1CgoLqgaRpdyWtrsWt/2tYUhYUuhVyrF9m9vc69gXNnPF1daV3SNLqPEBBAEIBQIJD09Pf08wP1B8vLC8sWwIvdPj74Pu3GfNMFBRQFKBEKLWdngWcf5s545OS35HNT1ZcnJ5wnJbtOAkFBGUEyWIJzi4sWiyydC6enp6anUQFT9n196X3PlPqylZVuldz7N0nY2EfYjp+tVvv7y/uLMOtw7u6f7iNxwc18fO18x5H4u2ZmhWYX48xx3d1T3aaOp3sXF1wXuEsur0dHAUcCRo5Fnp5CnoTcIRrKyg/KHsWJ1C0ttC11mVpYv7/Gv5F5Yy4HBxwHOBsOP62tjq0BI0esWlp1WuovtLCDgzaDbLUb7zMzzDOF/2a2Y2ORYz/yxlwCAggCEAoEEqqqkqo5OEmTcXHZca+o4t7IyAfIDs+NxhkZZBnIfTLRSUk5SXJwkjvZ2UPZhpqvX/Ly7/LDHfkx4+Or40tI26hbW3Fb4iq2uYiIGog0kg28mppSmqTIKT4mJpgmLb5MCzIyyDKN+mS/sLD6sOlKfVnp6YPpG2rP8g8PPA94Mx531dVz1eamtzOAgDqAdLod9L6+wr6ZfGEnzc0TzSbeh+s0NNA0veRoiUhIPUh6dZAy///b/6sk41R6evV694/0jZCQepD06j1kX19hX8I+vp0gIIAgHaBAPWhovWhn1dAPGhpoGtByNMquroKuGSxBt7S06rTJXnV9VFRNVJoZqM6Tk3aT7OU7fyIiiCINqkQvZGSNZAfpyGPx8ePx2xL/KnNz0XO/oubMEhJIEpBaJIJAQB1AOl2AeggIIAhAKBBIw8Mrw1bom5Xs7JfsM3vF39vbS9uWkKtNoaG+oWEfX8CNjQ6NHIMHkT099D31yXrIl5dml8zxM1sAAAAAAAAAAM/PG8821IP5KyusK0WHVm52dsV2l7Ps4YKCMoJksBnm1tZ/1v6psSgbG2wb2Hc2w7W17rXBW3d0r6+GrxEpQ75qarVqd9/UHVBQXVC6DaDqRUUJRRJMilfz8+vzyxj7ODAwwDCd8GCt7++b7yt0w8Q/P/w/5cN+2lVVSVWSHKrHoqKyonkQWdvq6o/qA2XJ6WVliWUP7MpqurrSurloaQMvL7wvZZNeSsDAJ8BO552O3t5f3r6BoWAcHHAc4Gw4/P390/27LudGTU0pTVJkmh+SknKS5OA5dnV1yXWPvOr6BgYYBjAeDDaKihKKJJgJrrKy8rL5QHlL5ua/5mNZ0YUODjgOcDYcfh8ffB/4Yz7nYmKVYjf3xFXU1HfU7qO1OqiomqgpMk2BlpZilsT0MVL5+cP5mzrvYsXFM8Vm9pejJSWUJTWxShBZWXlZ8iCyq4SEKoRUrhXQcnLVcren5MU5OeQ51d1y7ExMLUxaYZgWXl5lXso7vJR4eP1454Xwnzg44Djd2HDljIwKjBSGBZjR0WPRxrK/F6WlrqVBC1fk4uKv4kNN2aFhYZlhL/jCTrOz9rPxRXtCISGEIRWlQjScnEqclNYlCB4eeB7wZjzuQ0MRQyJShmHHxzvHdvyTsfz81/yzK+VPBAQQBCAUCCRRUVlRsgii45mZXpm8xy8lbW2pbU/E2iINDTQNaDkaZfr6z/qDNel5399b37aEo2l+fuV+15v8qSQkkCQ9tEgZOzvsO8XXdv6rq5arMT1Lms7OH84+0YHwERFEEYhVIpmPjwaPDIkDg05OJU5Ka5wEt7fmt9FRc2br64vrC2DL4Dw88Dz9zHjBgYE+gXy/H/2UlGqU1P41QPf3+/frDPMcubneuaFnbxgTE0wTmF8miywssCx9nFhR09Nr09a4uwXn57vna1zTjG5upW5Xy9w5xMQ3xG7zlaoDAwwDGA8GG1ZWRVaKE6zcREQNRBpJiF5/f+F/357+oKmpnqkhN0+IKiqoKk2CVGe7u9a7sW1rCsHBI8FG4p+HU1NRU6ICpvHc3FfcroulcgsLLAtYJxZTnZ1OnZzTJwFsbK1sR8HYKzExxDGV9WKkdHTNdIe56PP29v/24wnxFUZGBUYKQ4xMrKyKrAkmRaWJiR6JPJcPtRQUUBSgRCi04eGj4VtC37oWFlgWsE4spjo66DrN0nT3aWm5aW/Q0gYJCSQJSC0SQXBw3XCnreDXtrbittlUcW/Q0GfQzre9Hu3tk+07fsfWzMwXzC7bheJCQhVCKleEaJiYWpi0wi0spKSqpEkOVe0oKKAoXYhQdVxcbVzaMbiG+PjH+JM/7WuGhiKGRKQRwg==";
var hash$1 = "b272bf04";
var wasmJson$1 = {
	name: name$1,
	data: data$1,
	hash: hash$1
};

const mutex$1 = new Mutex();
let wasmCache$1 = null;
/**
 * Calculates Whirlpool hash
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function whirlpool(data) {
    if (wasmCache$1 === null) {
        return lockedCreate(mutex$1, wasmJson$1, 64).then((wasm) => {
            wasmCache$1 = wasm;
            return wasmCache$1.calculate(data);
        });
    }
    try {
        const hash = wasmCache$1.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new Whirlpool hash instance
 */
function createWhirlpool() {
    return WASMInterface(wasmJson$1, 64).then((wasm) => {
        wasm.init();
        const obj = {
            init: () => {
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 64,
            digestSize: 64,
        };
        return obj;
    });
}

var name = "sm3";
var data = "AGFzbQEAAAABDANgAAF/YAAAYAF/AAMIBwABAgIBAAIFBAEBAgIGDwJ/AUGAgAQLfwBBgIAECweCAQkGbWVtb3J5AgAPX19zdGFja19wb2ludGVyAwAOSGFzaF9HZXRCdWZmZXIAAAlIYXNoX0luaXQAAQtIYXNoX1VwZGF0ZQACCkhhc2hfRmluYWwABA1IYXNoX0dldFN0YXRlAAUOSGFzaF9DYWxjdWxhdGUABgpTVEFURV9TSVpFAwEKnxwHBgBBgIEEC1EAQQBCzdy3nO7Jw/2wfzcCoIEFQQBCvOG8y6qVzpgWNwKYgQVBAELXhZG5gcCBxVo3ApCBBUEAQu+sgJyX16yKyQA3AoiBBUEAQgA3AoCBBQulBAEHfwJAIABFDQBBAEEAKAKAgQUiASAAaiICNgKAgQUgAUE/cSEDAkAgAiABTw0AQQBBACgChIEFQQFqNgKEgQULAkACQAJAIAMNAEGAgQQhAQwBCwJAIABBwAAgA2siBE8NAEGAgQQhAQwCCyADQT9zIQUgA0GogQVqIQFBgIEEIQICQAJAIARBB3EiBg0AIAQhBwwBCyAGIQcDQCABIAItAAA6AAAgAUEBaiEBIAJBAWohAiAHQX9qIgcNAAtBwAAgBiADamshBwsCQCAFQQdJDQADQCABIAIpAAA3AAAgAUEIaiEBIAJBCGohAiAHQXhqIgcNAAsLQaiBBRADIARBgIEEaiEBIAAgBGshAAsCQCAAQcAASQ0AA0AgARADIAFBwABqIQEgAEFAaiIAQT9LDQALCyAARQ0BQQAhAwsgA0GogQVqIQICQAJAIABBB3EiBw0AIAAhBwwBCwNAIAIgAS0AADoAACACQQFqIQIgAUEBaiEBIAdBf2oiBw0ACyAAQXhxIQcLIABBCEkNAANAIAIgAS0AADoAACACQQFqIAFBAWotAAA6AAAgAkECaiABQQJqLQAAOgAAIAJBA2ogAUEDai0AADoAACACQQRqIAFBBGotAAA6AAAgAkEFaiABQQVqLQAAOgAAIAJBBmogAUEGai0AADoAACACQQdqIAFBB2otAAA6AAAgAkEIaiECIAFBCGohASAHQXhqIgcNAAsLC7cKARd/IwBBkAJrIgEkACABIAAoAhgiAkH/gfwHcUEIeCACQRh4Qf+B/AdxciIDNgIYIAEgACgCDCICQf+B/AdxQQh4IAJBGHhB/4H8B3FyIgI2AgwgASAAKAIcIgRB/4H8B3FBCHggBEEYeEH/gfwHcXIiBTYCHCABIAAoAgAiBEH/gfwHcUEIeCAEQRh4Qf+B/AdxciIGNgIAIAEgACgCFCIEQf+B/AdxQQh4IARBGHhB/4H8B3FyIgc2AhQgASAAKAIIIgRB/4H8B3FBCHggBEEYeEH/gfwHcXIiCDYCCCABIAAoAhAiBEH/gfwHcUEIeCAEQRh4Qf+B/AdxciIJNgIQIAEgACgCICIEQf+B/AdxQQh4IARBGHhB/4H8B3FyIgo2AiAgASAAKAIEIgRB/4H8B3FBCHggBEEYeEH/gfwHcXIiCzYCBCAAKAIkIQQgASAAKAI4IgxB/4H8B3FBCHggDEEYeEH/gfwHcXIiDDYCOCABIAAoAiwiDUH/gfwHcUEIeCANQRh4Qf+B/AdxciINNgIsIAEgCyAMQQ93cyAKcyIKQRd3IApBD3dzIAlBB3dzIA1zIApzNgJEIAEgACgCPCIKQf+B/AdxQQh4IApBGHhB/4H8B3FyIgo2AjwgASAEQf+B/AdxQQh4IARBGHhB/4H8B3FyIgQ2AiQgASAAKAIwIglB/4H8B3FBCHggCUEYeEH/gfwHcXIiCTYCMCABIAggCkEPd3MgBHMiBEEXdyAEQQ93cyAHQQd3cyAJcyAEczYCSCABIAAoAjQiBEH/gfwHcUEIeCAEQRh4Qf+B/AdxciIENgI0IAEgACgCKCIAQf+B/AdxQQh4IABBGHhB/4H8B3FyIgA2AiggASAGIARBD3dzIAVzIgpBF3cgCkEPd3MgAkEHd3MgAHMgCnMiCjYCQCABIAAgCkEPd3MgAnMiAEEXdyAAQQ93cyADQQd3cyAEcyAAczYCTEEAIQkgASEAQQAoAoiBBSIOIQpBACgCpIEFIg8hDUEAKAKggQUiECEDQQAoApyBBSIRIQtBACgCmIEFIhIhBUEAKAKUgQUiEyEUQQAoApCBBSIVIQZBACgCjIEFIhYhAgNAIAIhDCALIAUiBHMgAyIHcyANaiAKIgJBDHciAyAEakGZirHOByAJd2pBB3ciDWogACgCACIXaiIKQRF3IApBCXdzIApzIQUgDCAGIghzIAJzIBRqIA0gA3NqIABBEGooAgAgF3NqIQogAEEEaiEAIAtBE3chAyAMQQl3IQYgByENIAQhCyAIIRQgCUEBaiIJQRBHDQALQQAhC0EQIQwDQCACIQkgASALaiIAQdAAaiAAQThqKAIAIABBLGooAgAgAEEQaigCAHMgAEHEAGooAgBBD3dzIgJBF3dzIAJBD3dzIABBHGooAgBBB3dzIAJzIhc2AgAgCiICIAkgBiINcnEgDSAJcXIgCGogAkEMdyIKIAUiFGpBirue1AcgDHdqQQd3IgUgCnNqIBcgAEHAAGooAgAiBnNqIQogBCADIgBzIBRxIABzIAdqIAVqIAZqIgNBEXcgA0EJd3MgA3MhBSAMQQFqIQwgBEETdyEDIAlBCXchBiAAIQcgFCEEIA0hCCALQQRqIgtBwAFHDQALQQAgACAPczYCpIEFQQAgAyAQczYCoIEFQQAgFCARczYCnIEFQQAgBSASczYCmIEFQQAgDSATczYClIEFQQAgBiAVczYCkIEFQQAgAiAWczYCjIEFQQAgCiAOczYCiIEFIAFBkAJqJAALzAoBCX8jAEEQayIAJAAgAEEAKAKAgQUiAUEDdCICQfiB/AdxQQh4IAJBGHhB/4H8B3FyNgIMIABBACgChIEFIgNBA3QgAUEddnIiAkH/gfwHcUEIeCACQRh4Qf+B/AdxcjYCCAJAQThB+AAgAUE/cSIEQThJGyAEayIFRQ0AQQAgBSABaiIBNgKAgQUCQCABIAVPDQBBACADQQFqNgKEgQULAkACQAJAIAQNAEGQgAQhAQwBCwJAIAVBwAAgBGsiBk8NAEGQgAQhAQwCCyAEQT9zIQcgBEGogQVqIQFBkIAEIQICQAJAIAZBB3EiCA0AIAYhAwwBCyAIIQMDQCABIAItAAA6AAAgAUEBaiEBIAJBAWohAiADQX9qIgMNAAtBwAAgCCAEamshAwsCQCAHQQdJDQADQCABIAIpAAA3AAAgAUEIaiEBIAJBCGohAiADQXhqIgMNAAsLQaiBBRADIAZBkIAEaiEBIAUgBmshBQsCQCAFQcAASQ0AA0AgARADIAFBwABqIQEgBUFAaiIFQT9LDQALCyAFRQ0BQQAhBAsgBEGogQVqIQICQAJAIAVBB3EiAw0AIAUhAwwBCwNAIAIgAS0AADoAACACQQFqIQIgAUEBaiEBIANBf2oiAw0ACyAFQXhxIQMLIAVBCEkNAANAIAIgAS0AADoAACACQQFqIAFBAWotAAA6AAAgAkECaiABQQJqLQAAOgAAIAJBA2ogAUEDai0AADoAACACQQRqIAFBBGotAAA6AAAgAkEFaiABQQVqLQAAOgAAIAJBBmogAUEGai0AADoAACACQQdqIAFBB2otAAA6AAAgAkEIaiECIAFBCGohASADQXhqIgMNAAsLQQBBACgCgIEFIgJBCGo2AoCBBSACQT9xIQECQCACQXhJDQBBAEEAKAKEgQVBAWo2AoSBBQsCQAJAAkAgAQ0AQQAhAQwBCyABQThJDQAgASAALQAIOgCogQUCQCABQT9GDQAgAUGpgQVqIAAtAAk6AAAgAUE+Rg0AIAFBqoEFaiAALQAKOgAAIAFBPUYNACABQauBBWogAC0ACzoAACABQTxGDQAgAUGsgQVqIAAtAAw6AAAgAUE7Rg0AIAFBrYEFaiAALQANOgAAIAFBOkYNACABQa6BBWogAC0ADjoAACABQTlGDQAgAUGvgQVqIAAtAA86AABBqIEFEAMMAgtBqIEFEAMgAkEHcSICRQ0BIABBCGpBwAAgAWtqIQVBACEBA0AgAUGogQVqIAUgAWotAAA6AAAgAiABQQFqIgFHDQAMAgsLIAEgAC8BCDsAqIEFIAEgAC0ACjoAqoEFIAEgAC0ACzoAq4EFIAEgAC0ADDoArIEFIAEgAC0ADToArYEFIAEgAC0ADjoAroEFIAEgAC0ADzoAr4EFC0EAQQAoAoiBBSIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyNgKAgQRBAEEAKAKMgQUiAUH/gfwHcUEIeCABQRh4Qf+B/AdxcjYChIEEQQBBACgCkIEFIgFB/4H8B3FBCHggAUEYeEH/gfwHcXI2AoiBBEEAQQAoApSBBSIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyNgKMgQRBAEEAKAKYgQUiAUH/gfwHcUEIeCABQRh4Qf+B/AdxcjYCkIEEQQBBACgCnIEFIgFB/4H8B3FBCHggAUEYeEH/gfwHcXI2ApSBBEEAQQAoAqCBBSIBQf+B/AdxQQh4IAFBGHhB/4H8B3FyNgKYgQRBAEEAKAKkgQUiAUH/gfwHcUEIeCABQRh4Qf+B/AdxcjYCnIEEIABBEGokAAsGAEGAgQULjgIBA39BAELN3Lec7snD/bB/NwKggQVBAEK84bzLqpXOmBY3ApiBBUEAQteFkbmBwIHFWjcCkIEFQQBC76yAnJfXrIrJADcCiIEFQQBCADcCgIEFAkAgAEUNAEEAIAA2AoCBBUGAgQQhAQJAIABBwABJDQBBgIEEIQEDQCABEAMgAUHAAGohASAAQUBqIgBBP0sNAAsgAEUNAQtBqIEFIQICQAJAIABBB3EiAw0AIAAhAwwBCwNAIAIgAS0AADoAACACQQFqIQIgAUEBaiEBIANBf2oiAw0ACyAAQThxIQMLIABBCEkNAANAIAIgASkAADcAACACQQhqIQIgAUEIaiEBIANBeGoiAw0ACwsQBAsLUwIAQYCABAsEaAAAAABBkIAEC0CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
var hash = "3ceec540";
var wasmJson = {
	name: name,
	data: data,
	hash: hash
};

const mutex = new Mutex();
let wasmCache = null;
/**
 * Calculates SM3 hash
 * @param data Input data (string, Buffer or TypedArray)
 * @returns Computed hash as a hexadecimal string
 */
function sm3(data) {
    if (wasmCache === null) {
        return lockedCreate(mutex, wasmJson, 32).then((wasm) => {
            wasmCache = wasm;
            return wasmCache.calculate(data);
        });
    }
    try {
        const hash = wasmCache.calculate(data);
        return Promise.resolve(hash);
    }
    catch (err) {
        return Promise.reject(err);
    }
}
/**
 * Creates a new SM3 hash instance
 */
function createSM3() {
    return WASMInterface(wasmJson, 32).then((wasm) => {
        wasm.init();
        const obj = {
            init: () => {
                wasm.init();
                return obj;
            },
            update: (data) => {
                wasm.update(data);
                return obj;
            },
            // biome-ignore lint/suspicious/noExplicitAny: Conflict with IHasher type
            digest: (outputType) => wasm.digest(outputType),
            save: () => wasm.save(),
            load: (data) => {
                wasm.load(data);
                return obj;
            },
            blockSize: 64,
            digestSize: 32,
        };
        return obj;
    });
}

export { adler32, argon2Verify, argon2d, argon2i, argon2id, bcrypt, bcryptVerify, blake2b, blake2s, blake3, crc32, crc64, createAdler32, createBLAKE2b, createBLAKE2s, createBLAKE3, createCRC32, createCRC64, createHMAC, createKeccak, createMD4, createMD5, createRIPEMD160, createSHA1, createSHA224, createSHA256, createSHA3, createSHA384, createSHA512, createSM3, createWhirlpool, createXXHash128, createXXHash3, createXXHash32, createXXHash64, keccak, md4, md5, pbkdf2, ripemd160, scrypt, sha1, sha224, sha256, sha3, sha384, sha512, sm3, whirlpool, xxhash128, xxhash3, xxhash32, xxhash64 };
