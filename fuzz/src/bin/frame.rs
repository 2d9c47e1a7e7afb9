//! AFL++ entry point of the `frame` target (see `fuzz/README.md`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hermit_fuzz::frame(data);
    });
}
