//! AFL++ entry point of the `envelope` target (see `fuzz/README.md`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hermit_fuzz::envelope(data);
    });
}
