//! AFL++ entry point of the `ws` target (see `fuzz/README.md`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hermit_fuzz::ws(data);
    });
}
