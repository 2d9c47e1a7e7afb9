export { AeadId, DecapError, DeriveKeyPairError, DeserializeError, EncapError, ExportError, HpkeError, InvalidParamError, KdfId, KemId, MessageLimitReachedError, NotSupportedError, OpenError, SealError, SerializeError, ValidationError, } from "@hpke/common";
export { Aes128Gcm, Aes256Gcm } from "./src/aeads/aesGcm.js";
export { ExportOnly } from "./src/aeads/exportOnly.js";
export { CipherSuite, DhkemP256HkdfSha256, DhkemP384HkdfSha384, DhkemP521HkdfSha512, HkdfSha256, HkdfSha384, HkdfSha512, } from "./src/native.js";
export { DhkemX25519HkdfSha256 } from "./src/kems/dhkemX25519.js";
export { DhkemX448HkdfSha512 } from "./src/kems/dhkemX448.js";
