//! AFL++ entry point of the `sealkey` target (see `fuzz/README.md`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hermit_fuzz::sealkey(data);
    });
}
