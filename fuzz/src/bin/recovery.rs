//! AFL++ entry point of the `recovery` target (see `fuzz/README.md`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hermit_fuzz::recovery(data);
    });
}
