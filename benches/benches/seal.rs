//! Sealed-record throughput: seal and open, DIRECT and MULTI (1 / 10 / 100
//! recipients), 27-byte and 1 KiB plaintexts, on one core; and, as the
//! yardstick for DIRECT, the raw AES-256-GCM calls a DIRECT record makes
//! (`raw_aead`: the same library and key size, the envelope's 72 bytes of
//! associated data, the padded body), so that `seal_direct / raw_aead/seal`
//! is the envelope's own overhead.
//!
//! `cargo bench -p hermit-benches --bench seal`; with `--features
//! rustcrypto-aead` the client seals on RustCrypto's `aes-gcm` and
//! `raw_aead` measures that library instead of aws-lc-rs.
//!
//! Sealing appends into one reused buffer (`seal_*_into`), so the figures are the
//! per-record cost with cached pairwise keys. Opening needs fresh sequence
//! numbers (the replay window refuses a record twice): each benchmark opens a
//! pre-sealed ring of records in order with a fresh `Opener` per pass, and only
//! the opens are timed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hermit_client::crypto::envelope::padded_len;
use hermit_client::crypto::{Identity, Opener, PublicKey, Sealer};

const TOPIC: &str = "bench.sealed";
const SIZES: [(&str, usize); 2] = [("27B", 27), ("1KiB", 1024)];
const FANOUT: [usize; 3] = [1, 10, 100];

fn identity() -> Identity {
    Identity::generate().expect("OS random source")
}

fn sealer() -> Sealer {
    Sealer::new(identity()).expect("OS random source")
}

fn keys(ids: &[Identity]) -> Vec<PublicKey> {
    ids.iter().map(|i| i.public_key().clone()).collect()
}

/// Opens `ring` in order, again and again, `iters` records in all; a fresh
/// opener per pass (untimed) keeps every sequence number new.
fn open_ring(me: &Identity, sender: &Identity, ring: &[Vec<u8>], iters: u64) -> Duration {
    let mut out = Vec::with_capacity(2048);
    let mut left = iters;
    let mut timed = Duration::ZERO;
    while left > 0 {
        let mut opener = Opener::new(me.clone());
        opener.trust(sender.public_key()).expect("trust");
        let n = usize::try_from(left).unwrap_or(usize::MAX).min(ring.len());
        let started = Instant::now();
        for record in &ring[..n] {
            out.clear();
            black_box(opener.open_into(TOPIC, record, &mut out).expect("open"));
        }
        timed += started.elapsed();
        left -= n as u64;
    }
    timed
}

fn seal_direct(c: &mut Criterion) {
    let mut g = c.benchmark_group("seal_direct");
    g.throughput(Throughput::Elements(1));
    let mut s = sealer();
    let bob = identity();
    for (name, len) in SIZES {
        let pt = vec![0x5a; len];
        let mut out = Vec::with_capacity(len + 256);
        g.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                s.seal_direct_into(TOPIC, bob.public_key(), black_box(&pt), &mut out)
                    .expect("seal")
            });
        });
    }
    g.finish();
}

fn open_direct(c: &mut Criterion) {
    let mut g = c.benchmark_group("open_direct");
    g.throughput(Throughput::Elements(1));
    let alice = identity();
    let bob = identity();
    let mut s = Sealer::new(alice.clone()).expect("rng");
    for (name, len) in SIZES {
        let pt = vec![0x5a; len];
        let ring: Vec<Vec<u8>> = (0..8192)
            .map(|_| s.seal_direct(TOPIC, bob.public_key(), &pt).expect("seal"))
            .collect();
        g.bench_function(name, |b| {
            b.iter_custom(|iters| open_ring(&bob, &alice, &ring, iters))
        });
    }
    g.finish();
}

/// The raw AES-256-GCM calls, on the library the client was built with
/// (`hermit_client::crypto::AEAD_BACKEND`, checked when the bench starts).
#[cfg(not(feature = "rustcrypto-aead"))]
mod raw {
    use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};

    pub const NAME: &str = "aws-lc-rs";

    pub struct Key(LessSafeKey);

    impl Key {
        pub fn new(key: &[u8; 32]) -> Self {
            Self(LessSafeKey::new(
                UnboundKey::new(&AES_256_GCM, key).expect("32-byte key"),
            ))
        }

        pub fn seal(&self, iv: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
            let tag = self
                .0
                .seal_in_place_separate_tag(Nonce::assume_unique_for_key(*iv), Aad::from(aad), buf)
                .expect("seal");
            tag.as_ref().try_into().expect("16-byte tag")
        }

        pub fn open(&self, iv: &[u8; 12], aad: &[u8], ct: &[u8], tag: &[u8], out: &mut [u8]) {
            self.0
                .open_separate_gather(
                    Nonce::assume_unique_for_key(*iv),
                    Aad::from(aad),
                    ct,
                    tag,
                    out,
                )
                .expect("open");
        }
    }
}

/// The raw AES-256-GCM calls, on the library the client was built with
/// (`hermit_client::crypto::AEAD_BACKEND`, checked when the bench starts):
/// encrypt-only AES, as the client's backend.
#[cfg(feature = "rustcrypto-aead")]
mod raw {
    use aes_gcm::aead::consts::U12;
    use aes_gcm::aead::inout::InOutBuf;
    use aes_gcm::aes::Aes256Enc;
    use aes_gcm::{AeadInOut as _, AesGcm, KeyInit as _, Nonce, Tag};

    pub const NAME: &str = "rustcrypto-aes-gcm";

    pub struct Key(Box<AesGcm<Aes256Enc, U12>>);

    impl Key {
        pub fn new(key: &[u8; 32]) -> Self {
            Self(Box::new(AesGcm::new(key.into())))
        }

        pub fn seal(&self, iv: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
            self.0
                .encrypt_inout_detached(&Nonce::from(*iv), aad, InOutBuf::from(buf))
                .expect("seal")
                .into()
        }

        pub fn open(&self, iv: &[u8; 12], aad: &[u8], ct: &[u8], tag: &[u8], out: &mut [u8]) {
            let buf = InOutBuf::new(ct, out).expect("same lengths");
            let tag = Tag::try_from(tag).expect("16-byte tag");
            self.0
                .decrypt_inout_detached(&Nonce::from(*iv), aad, buf, &tag)
                .expect("open");
        }
    }
}

/// One AES-256-GCM seal and one open, as a DIRECT record of each size makes
/// them (a cached key, a 12-byte IV, 40 + 32 bytes of associated data, the
/// Padmé-padded body), without the envelope around them.
fn raw_aead(c: &mut Criterion) {
    let mut g = c.benchmark_group("raw_aead");
    g.throughput(Throughput::Elements(1));
    assert_eq!(
        hermit_client::crypto::AEAD_BACKEND,
        raw::NAME,
        "raw_aead measures the client's AEAD"
    );
    let key = raw::Key::new(&[0x42; 32]);
    let aad = [0x17u8; 72];
    let iv = [0x09u8; 12];
    for (name, len) in SIZES {
        let body = padded_len(len).expect("small");
        let mut buf = vec![0x5a; body];
        g.bench_function(BenchmarkId::new("seal", name), |b| {
            b.iter(|| key.seal(black_box(&iv), black_box(&aad), &mut buf));
        });
        // `iv || ciphertext || tag` of a body of 0x5a bytes.
        let record = |iv: [u8; 12]| -> Vec<u8> {
            let mut ct = vec![0x5a; body];
            let tag = key.seal(&iv, &aad, &mut ct);
            [&iv[..], &ct, &tag[..]].concat()
        };
        let one = record(iv);
        let (sealed, tag) = one[12..].split_at(body);
        let mut out = vec![0u8; body];
        g.bench_function(BenchmarkId::new("open", name), |b| {
            b.iter(|| key.open(black_box(&iv), black_box(&aad), sealed, tag, &mut out));
        });
        // As `open_direct` reads them: a ring of 8192 distinct records
        // (12-byte IV, body, tag; one allocation each), opened in order,
        // so the yardstick pays the same cache misses as the real thing.
        let ring: Vec<Vec<u8>> = (0..8192u32)
            .map(|i| {
                let mut iv = [0u8; 12];
                iv[..4].copy_from_slice(&i.to_be_bytes());
                record(iv)
            })
            .collect();
        g.bench_function(BenchmarkId::new("open_ring", name), |b| {
            b.iter_custom(|iters| {
                let started = Instant::now();
                for record in ring
                    .iter()
                    .cycle()
                    .take(usize::try_from(iters).unwrap_or(usize::MAX))
                {
                    let (iv, rest) = record.split_at(12);
                    let (ct, tag) = rest.split_at(rest.len() - 16);
                    let iv = iv.try_into().expect("12 bytes");
                    key.open(iv, black_box(&aad), ct, tag, &mut out);
                }
                started.elapsed()
            });
        });
    }
    g.finish();
}

fn seal_multi(c: &mut Criterion) {
    let mut g = c.benchmark_group("seal_multi");
    g.throughput(Throughput::Elements(1));
    let mut s = sealer();
    for n in FANOUT {
        let members: Vec<Identity> = (0..n).map(|_| identity()).collect();
        let ks = keys(&members);
        for (name, len) in SIZES {
            let pt = vec![0x5a; len];
            let mut out = Vec::with_capacity(len + 70 + 56 * n + 64);
            g.bench_with_input(
                BenchmarkId::new(format!("{n}_recipients"), name),
                &pt,
                |b, pt| {
                    b.iter(|| {
                        out.clear();
                        s.seal_multi_into(TOPIC, &ks, black_box(pt), &mut out)
                            .expect("seal")
                    });
                },
            );
        }
    }
    g.finish();
}

fn open_multi(c: &mut Criterion) {
    let mut g = c.benchmark_group("open_multi");
    g.throughput(Throughput::Elements(1));
    let alice = identity();
    let mut s = Sealer::new(alice.clone()).expect("rng");
    for n in FANOUT {
        let members: Vec<Identity> = (0..n).map(|_| identity()).collect();
        let ks = keys(&members);
        // The reader's entry is the last one: the worst case for finding it.
        let me = &members[n - 1];
        for (name, len) in SIZES {
            let pt = vec![0x5a; len];
            let ring: Vec<Vec<u8>> = (0..1024)
                .map(|_| s.seal_multi(TOPIC, &ks, &pt).expect("seal"))
                .collect();
            g.bench_with_input(
                BenchmarkId::new(format!("{n}_recipients"), name),
                &ring,
                |b, ring| {
                    b.iter_custom(|iters| open_ring(me, &alice, ring, iters));
                },
            );
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(40);
    targets = raw_aead, seal_direct, open_direct, seal_multi, open_multi
}
criterion_main!(benches);
